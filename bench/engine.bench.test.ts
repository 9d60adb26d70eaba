// Run-engine figures inside workerd (`npm run bench:engine`). Printed, never asserted.
//   (1) overhead per journal step inside the object with a zero-latency scripted model, beside one
//       bare SQLite insert of the same size, measured in the same object and run;
//  (1b) the journal write alone beside the same bare insert;
//  (1c) where (1)'s time goes: each SQL statement, the transaction, the rest (JavaScript), the loop
//       alone with an in-memory journal, and a slice's fixed cost (run alone: `-t breakdown`);
//  (1g) a slice's step rows written one statement each, three to a statement, or in one json_each statement;
//   (2) time from a step's commit to its event on a connected WebSocket;
//   (3) resume after eviction of a 500-step run until the next new step starts;
//   (4) storage bytes per step as the run grows (must stay flat).
// The local pool's clock runs in whole milliseconds during CPU work (see loop.bench.test.ts), so
// every figure is taken over many steps.
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSlice } from "../src/durable/engine/engine";
import { createJournal } from "../src/durable/engine/journal/journal";
import { insertStepRows, stepRowJson } from "../src/durable/engine/journal/step-batch";
import { insertStepRow, stepRowValues, type StepRow } from "../src/durable/engine/journal/step-commit";
import { lastSeq } from "../src/durable/events/log/event-log";
import { actionFor, storedRunEvent } from "../src/durable/events/log/run-events";
import { writeHeldEvents } from "../src/durable/events/log/emit-event";
import { HeldEvents } from "../src/durable/events/log/held-events";
import { loopOptions } from "../src/durable/engine/loop-options";
import { readRun } from "../src/durable/run/store/run-store";
import { readSegment } from "../src/durable/run/store/segment-store";
import { runToolLoop } from "../src/loop";
import type { RunToolLoopOptions, Step, StoredLoopEvent } from "../src/loop/types";
import { Fanout } from "../src/durable/events/readers/fanout";
import type { RunObject } from "../src/durable/run/run-object";
import { createRun, journalKeys, stubFor, viewOf, type RunStub } from "../test/helpers/runs";
import { watch } from "../test/helpers/watch";
import { timedState } from "./support/timed-storage";
import { startSpanExport } from "../src/durable/outbox/channels/span-delivery";
import { seedRunOf } from "../src/durable/telemetry/span-writer";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

function script(turns: number) {
  const calls = Array.from({ length: turns }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.0001, usage: { inputTokens: 100, outputTokens: 10 } }));
  return [...calls, { text: "done", costUsd: 0.0001, usage: { inputTokens: 100, outputTokens: 10 } }];
}

/** Runs `steps` new journal steps in the object and returns the elapsed ms. */
async function slice(stub: RunStub, steps: number): Promise<number> {
  return runInDurableObject(typed(stub), async (_instance, state) => {
    const started = performance.now();
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: steps }, new AbortController());
    return performance.now() - started;
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;
const log = (line: string) => console.log(`[bench:engine] ${line}`);
const summary = (ratios: number[]) => `median ${median(ratios).toFixed(1)}× (range ${Math.min(...ratios).toFixed(1)}–${Math.max(...ratios).toFixed(1)}×)`;

/**
 * ms per bare insert of a 300-byte row, in the object of `state`: 10,000 inserts, half of them
 * before and half after `measured` (which runs in between and returns its own figure), so that a
 * change of the machine's load during a round moves both sides of the ratio alike. With a clock of
 * whole milliseconds, 2,000 inserts (about 4 ms) left the baseline of every ratio a quarter uncertain.
 */
const BARE_INSERTS = 10_000;
async function besideBareInserts<T>(stub: RunStub, measured: () => Promise<T>): Promise<{ bare: number; figure: T }> {
  const half = (first: number) =>
    runInDurableObject(typed(stub), (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE IF NOT EXISTS bench (k TEXT PRIMARY KEY, v TEXT)");
      const value = "x".repeat(300);
      const started = performance.now();
      for (let i = first; i < first + BARE_INSERTS / 2; i++) state.storage.sql.exec("INSERT INTO bench (k, v) VALUES (?, ?)", `k${i}`, value);
      return performance.now() - started;
    });
  const before = await half(0);
  const figure = await measured();
  const after = await half(BARE_INSERTS / 2);
  return { bare: (before + after) / BARE_INSERTS, figure };
}

describe("run engine figures", () => {
  it("(1) overhead per step vs a bare SQLite insert, and (4) storage bytes per step", async () => {
    log(`runtime: workerd (vitest-plugin); navigator.userAgent ${JSON.stringify((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent)}`);
    const ratios: string[] = [];
    const values: number[] = [];
    for (let round = 0; round < 5; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      // Bare inserts of a row the size of a typical step, in the same object, same run, around
      // the whole run in one slice: the cost of new steps, no replay.
      const { bare, figure: total } = await besideBareInserts(stub, () => slice(stub, 5000));
      const steps = (await journalKeys(stub)).length;
      const perStep = total / steps;
      ratios.push(`${perStep.toFixed(4)} ms/step vs ${bare.toFixed(4)} ms/insert = ${(perStep / bare).toFixed(1)}×`);
      values.push(perStep / bare);
      expect(steps).toBe(2001);
      expect((await viewOf(stub)).status).toBe("finished");
    }
    // (4) Storage as a run grows, 200 steps at a time.
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
    const sizes: number[] = [];
    for (let chunk = 0; chunk < 11; chunk++) {
      await slice(stub, 200);
      sizes.push(await runInDurableObject(typed(stub), (_instance, state) => state.storage.sql.databaseSize));
    }
    const growth = sizes.slice(1).map((size, i) => Math.round((size - sizes[i]!) / 200));
    log(`(4) database bytes per step, per 200-step window as the run grows to 2001 steps: ${growth.join(", ")}`);
    log(`(1) whole step in the object (loop + scripted model + tool + journal write + events), 5 runs of 2001 steps: ${summary(values)}`);
    for (const line of ratios) log(`    ${line}`);
  });

  it("(1b) the journal write alone (value + its events + counters, one transaction) vs a bare insert", async () => {
    const lines: string[] = [];
    const values: number[] = [];
    for (let round = 0; round < 5; round++) {
      const { stub } = await createRun({ script: [{ text: "x" }] });
      const { bare, figure: journal } = await besideBareInserts(stub, () =>
        runInDurableObject(typed(stub), async (_instance, state) => {
          const { sql } = state.storage;
          const step = createJournal({
            sql, storage: state.storage, prefix: "b/", stored: new Map(), signal: new AbortController().signal,
            beforeNewStep: () => {}, toRunEvent: (event) => storedRunEvent(event, 0), onCommit: () => {},
          });
          const event: StoredLoopEvent = { type: "tool-result", key: "k", step: 1, callId: "c", name: "calculator", ok: true, summary: "42", costUsd: 0 };
          const value = { content: "42", isError: false, costUsd: 0 };
          const started = performance.now();
          for (let i = 0; i < 2000; i++) await step(`tool/${i}/c`, async () => ({ value, costUsd: 0, events: [event] }));
          return (performance.now() - started) / 2000;
        }),
      );
      lines.push(`${journal.toFixed(4)} ms/step vs ${bare.toFixed(4)} ms/insert = ${(journal / bare).toFixed(1)}×`);
      values.push(journal / bare);
    }
    log(`(1b) journal write alone (2000 steps, 5 runs): ${summary(values)}`);
    for (const line of lines) log(`    ${line}`);
  });

  it("(1c) breakdown: where a step's time goes (SQL by statement, transaction, JavaScript; the loop alone)", async () => {
    const lines: string[] = [];
    const per = (ms: number, steps: number) => `${((ms / steps) * 1000).toFixed(1)} µs/step`;
    for (let round = 0; round < 3; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      const { bare, figure } = await besideBareInserts(stub, () =>
        runInDurableObject(typed(stub), async (_instance, state) => {
          const { state: timed, timings } = timedState(state);
          const started = performance.now();
          await runSlice({ ctx: timed, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 5000 }, new AbortController());
          return { total: performance.now() - started, sqlMs: timings.sqlMs, parts: [...timings.parts] };
        }),
      );
      const figures = { bare, ...figure };
      const steps = (await journalKeys(stub)).length;
      const overhead = figures.parts.filter(([label]) => !label.startsWith("sql")).reduce((sum, [, part]) => sum + part.ms, 0);
      lines.push(`  run ${round + 1}: whole ${per(figures.total, steps)} (${(figures.total / steps / figures.bare).toFixed(1)}× a bare insert of ${(figures.bare * 1000).toFixed(1)} µs); SQL ${per(figures.sqlMs, steps)}, transaction overhead ${per(overhead, steps)}, the rest (JavaScript) ${per(figures.total - figures.sqlMs - overhead, steps)}`);
      for (const [label, part] of [...figures.parts].sort((a, b) => b[1].ms - a[1].ms)) {
        lines.push(`      ${per(part.ms, steps).padStart(14)}  ${(part.calls / steps).toFixed(2)} calls/step  ${label}`);
      }
    }
    // The loop alone on the same run: the same options, an in-memory journal, no events stored.
    const loopOnly: number[] = [];
    for (let round = 0; round < 3; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      loopOnly.push(
        await runInDurableObject(typed(stub), async (_instance, state) => {
          const { sql } = state.storage;
          const run = readRun(sql)!;
          const segment = readSegment(sql, run.segment);
          let steps = 0;
          const memory: Step = async (_key, work) => {
            steps++;
            return (await work(new AbortController().signal)).value;
          };
          const engine = { ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now() };
          const signal = new AbortController().signal;
          const started = performance.now();
          await runToolLoop(loopOptions(engine, run, segment, memory, signal, () => {}));
          return (performance.now() - started) / steps;
        }),
      );
    }
    // (1) split by where it runs, on the same run: the engine's wiring (the real journal and
    // events, the loop's event handler) with each journal call and its work timed. What is
    // outside a journal call is the loop between steps; a step's work is the model call or tool
    // with the event stored before it; the journal's own part is JSON, the transaction and the send.
    const split: string[] = [];
    for (let round = 0; round < 3; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      const figures = await runInDurableObject(typed(stub), async (_instance, state) => {
        const { state: timedCtx, timings } = timedState(state);
        const { sql } = timedCtx.storage;
        const run = readRun(sql)!;
        const segment = readSegment(sql, run.segment);
        const prefix = `s${segment.n}/`;
        const engine = { ctx: timedCtx, env, fanout: new Fanout(timedCtx), fetch, now: () => Date.now() };
        const signal = new AbortController().signal;
        const held = new HeldEvents(new Set(), (events, outside) => writeHeldEvents(engine, events, outside), (events) => engine.fanout.sendLogged(events));
        const journal = createJournal({
          sql, storage: timedCtx.storage, prefix, stored: new Map(), signal, beforeNewStep: () => {}, held,
          toRunEvent: (event) => storedRunEvent(event, segment.stepsBefore), onCommit: (events, _chars, taken) => held.sendCommitted(taken!, events),
        });
        let steps = 0;
        let inSteps = 0;
        let inWork = 0;
        let sqlInWork = 0;
        const step: Step = async (key, work) => {
          const started = performance.now();
          const value = await journal(key, async (workSignal) => {
            const begun = performance.now();
            const sqlBefore = timings.sqlMs;
            try {
              return await work(workSignal);
            } finally {
              inWork += performance.now() - begun;
              sqlInWork += timings.sqlMs - sqlBefore;
            }
          });
          inSteps += performance.now() - started;
          steps++;
          return value;
        };
        const started = performance.now();
        await runToolLoop(
          loopOptions(engine, run, segment, step, signal, (event) => {
            const action = actionFor(event, segment.stepsBefore, prefix);
            if (action.kind === "log") held.hold(action.event, action.dedupe);
          }),
        );
        const whole = performance.now() - started;
        return { steps, whole, inSteps, inWork, sqlInWork, sql: timings.sqlMs };
      });
      const us = (ms: number) => `${((ms / figures.steps) * 1000).toFixed(1)}`;
      const journalOwn = figures.inSteps - figures.inWork;
      const sqlInJournal = figures.sql - figures.sqlInWork;
      split.push(
        `  run ${round + 1}, µs/step: whole ${us(figures.whole)}; the loop between steps ${us(figures.whole - figures.inSteps)}; ` +
          `a step's work ${us(figures.inWork)} (its SQL, the event stored before it: ${us(figures.sqlInWork)}; the rest, the model call or tool: ${us(figures.inWork - figures.sqlInWork)}); ` +
          `the journal's write ${us(journalOwn)} (its SQL: ${us(sqlInJournal)}; the rest, JSON, transaction and send: ${us(journalOwn - sqlInJournal)})`,
      );
    }
    // What one of a step's parts costs alone, in the object, 20,000 times each: what a step
    // would save by doing one fewer of it.
    const units: string[] = [];
    for (let round = 0; round < 3; round++) {
      const { stub } = await createRun({ script: [{ text: "x" }] });
      units.push(
        await runInDurableObject(typed(stub), (_instance, state) => {
          const { sql } = state.storage;
          const times = 20_000;
          const cost = (label: string, part: (i: number) => unknown) => {
            const started = performance.now();
            for (let i = 0; i < times; i++) part(i);
            return `${label} ${(((performance.now() - started) / times) * 1000).toFixed(2)}`;
          };
          sql.exec("CREATE TABLE IF NOT EXISTS bench (k TEXT PRIMARY KEY, v TEXT)");
          const row = "x".repeat(300);
          const value = { message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }] }, usage: { inputTokens: 100, outputTokens: 10, cachedReadTokens: 0, cachedWriteTokens: 0 }, costUsd: 0.0001, stopReason: "tool_use", last: false };
          const text = JSON.stringify(value);
          const event = storedRunEvent({ type: "model", key: "model/1", step: 1, text: "", toolCalls: value.message.toolCalls, usage: value.usage, costUsd: 0.0001, spentUsd: 0.0002, stopReason: "tool_use" }, 0);
          return [
            cost("bare insert", (i) => sql.exec("INSERT INTO bench (k, v) VALUES (?, ?)", `k${i}`, row)),
            cost("sql.databaseSize", () => sql.databaseSize),
            cost("empty transactionSync", () => state.storage.transactionSync(() => 0)),
            cost("counters UPDATE", () => sql.exec("UPDATE run SET steps = steps + ?, spent_usd = spent_usd + ?, updated_at = ?", 0, 0, "2026-12-01T00:00:00.000Z")),
            cost("JSON.stringify of a model step's value", () => JSON.stringify(value)),
            cost("JSON.parse of it", () => JSON.parse(text)),
            cost("its event's text", (i) => JSON.stringify({ seq: i, at: "2026-12-01T00:00:00.000Z", ...event })),
          ].join(", ");
        }),
      );
    }
    // What a slice costs before its first new step (the run row with its script, the provider and
    // tools, the loop's start), paid once by each slice of (1): a slice of no new step, 20 times.
    const fixed: number[] = [];
    for (let round = 0; round < 3; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      fixed.push(
        await runInDurableObject(typed(stub), async (_instance, state) => {
          const started = performance.now();
          for (let i = 0; i < 20; i++) await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 0 }, new AbortController());
          return (performance.now() - started) / 20;
        }),
      );
    }
    log("(1c) breakdown of (1), 3 runs of 2001 steps (each SQL call timed; sums over the run are fair with a 1 ms clock):");
    for (const line of lines) log(line);
    log(`(1c) the loop alone (same options, scripted model + calculator, in-memory journal, no events): ${loopOnly.map((ms) => `${(ms * 1000).toFixed(1)} µs/step`).join(", ")}`);
    log("(1c) a step split by where it runs (the engine's wiring with a timed journal, no size check; SQL timed by call):");
    for (const line of split) log(line);
    log("(1c) one part alone, µs each (20,000 times in the object):");
    for (const line of units) log(`  ${line}`);
    log(`(1c) a slice's fixed cost before its first new step (run row and script, provider, tools, loop start): ${fixed.map((ms) => `${ms.toFixed(2)} ms`).join(", ")} — ${fixed.map((ms) => `${((ms / 2001) * 1000).toFixed(1)}`).join(", ")} µs per step of a 2001-step slice`);
  });

  it("(1f) loop guards on vs off: the step in the object, the real journal and its events", async () => {
    // The same 2,001-step run (1,000 model calls, 1,000 calculator calls, the answer) driven by the engine's own loop options (src/durable/engine/loop-options.ts)
    // and journal, with every loop detector on (the defaults every run has: all four tracked on every
    // message) and off (the options' loopGuards removed), alternated 30 times each after 2 rounds of
    // warm-up, the order swapped every round. Its calls all differ, so no detector trips: what is
    // compared is the tracking every step pays. BENCH_GUARDRAILS: the hook for a variant with
    // guardrails as well (the options a run with three data guardrails gets): add it to VARIANTS.
    type Variant = { name: string; tune: (options: RunToolLoopOptions) => void };
    const VARIANTS: Variant[] = [
      { name: "off", tune: (options) => delete options.loopGuards },
      { name: "loop guards on", tune: (options) => void (options.loopGuards = {}) },
    ];
    const figures = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
    const WARM_UP = 2;
    for (let round = 0; round < WARM_UP + 30; round++) {
      for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
        const perStep = await runInDurableObject(typed(stub), async (_instance, state) => {
          const { sql } = state.storage;
          const run = readRun(sql)!;
          const segment = readSegment(sql, run.segment);
          const prefix = `s${segment.n}/`;
          const engine = { ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now() };
          const signal = new AbortController().signal;
          const held = new HeldEvents(new Set(), (events, outside) => writeHeldEvents(engine, events, outside), (events) => engine.fanout.sendLogged(events));
          let steps = 0;
          const journal = createJournal({
            sql, storage: state.storage, prefix, stored: new Map(), signal, beforeNewStep: () => void steps++, held,
            toRunEvent: (event) => storedRunEvent(event, segment.stepsBefore), onCommit: (events, _chars, taken) => held.sendCommitted(taken!, events),
          });
          const options = loopOptions(engine, run, segment, journal, signal, (event) => {
            if (event.type === "stop") return;
            const action = actionFor(event, segment.stepsBefore, prefix);
            if (action.kind === "log") held.hold(action.event, action.dedupe);
          });
          variant.tune(options);
          const started = performance.now();
          await runToolLoop(options);
          held.close();
          return (performance.now() - started) / steps;
        });
        if (round >= WARM_UP) figures.get(variant.name)!.push(perStep);
      }
    }
    const offs = figures.get("off")!;
    for (const variant of VARIANTS.slice(1)) {
      const ons = figures.get(variant.name)!;
      const ratios = ons.map((value, i) => value / offs[i]!);
      log(`(1f) ${variant.name} vs off, 30 × 2001 steps each after 2 rounds of warm-up, alternated: off median ${(median(offs) * 1000).toFixed(1)} µs/step, on ${(median(ons) * 1000).toFixed(1)} µs/step; on/off per round ${summary(ratios)}; to two places: median ${median(ratios).toFixed(2)}× (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`);
    }
  });

  it("(1d) trace export on vs off: the step in the object, and what sending its spans costs", async () => {
    // The same 2,001-step slice with OTEL_EXPORTER_OTLP_ENDPOINT unset and set, alternated, 10 times
    // each after 2 rounds of warm-up (not counted: the first slices of a process run on a cold JIT,
    // which made the first "off" look slow), the order within a round swapped every round (off, on,
    // then on, off), so neither side always runs first. No alarm fires in the bench, so no export runs during the slice: what (1d) compares is
    // the step's own work. The export's own work is then timed apart: every span row of the run
    // made into what one request sends (src/durable/outbox/channels/span-delivery.ts), the request not sent.
    const on = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/otlp" };
    const offs: number[] = [];
    const ons: number[] = [];
    const sends: number[] = [];
    const WARM_UP = 2;
    for (let round = 0; round < WARM_UP + 10; round++) {
      const pair = [[env, offs], [on, ons]] as const;
      for (const [settings, into] of round % 2 === 0 ? pair : [...pair].reverse()) {
        const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
        const ms = await runInDurableObject(typed(stub), async (_instance, state) => {
          const started = performance.now();
          await runSlice({ ctx: state, env: settings, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 5000 }, new AbortController());
          return performance.now() - started;
        });
        if (round < WARM_UP) continue;
        into.push(ms / (await journalKeys(stub)).length);
        if (settings !== on) continue;
        sends.push(
          await runInDurableObject(typed(stub), async (_instance, state) => {
            const { sql } = state.storage;
            let bodies = 0;
            const started = performance.now();
            for (;;) {
              const attempt = startSpanExport(
                { sql, now: () => Date.now(), random: () => 0.5, seedRun: () => seedRunOf(sql), sendSpans: async (texts: readonly string[]) => ((bodies += texts.length), { ok: true, rejected: 0 }) },
                (write) => write(),
              );
              if (attempt === undefined) break;
              await attempt;
            }
            return bodies === 0 ? Number.NaN : (performance.now() - started) / bodies;
          }),
        );
      }
    }
    const ratios = ons.map((value, i) => value / offs[i]!);
    log(`(1d) whole step in the object, 10 × 2001 steps each after 2 rounds of warm-up, alternated (order swapped each round): export off median ${(median(offs) * 1000).toFixed(1)} µs/step, on ${(median(ons) * 1000).toFixed(1)} µs/step; on/off per round ${summary(ratios)}; to two places: median ${median(ratios).toFixed(2)}× (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`);
    log(`    off: ${offs.map((v) => (v * 1000).toFixed(1)).join(", ")} µs; on: ${ons.map((v) => (v * 1000).toFixed(1)).join(", ")} µs`);
    log(`(1d) the export's own work per span sent (rows read, spans made, request body texts; the request not sent): median ${(median(sends) * 1000).toFixed(1)} µs (${sends.map((v) => (v * 1000).toFixed(1)).join(", ")})`);
  });

  it("(1e) the step beside the no-sync floor: the least a durable loop of the same steps writes", async () => {
    // The floor, in the same kind of object: for each of the run's 2,001 journal steps, the
    // scripted turn or the calculator's answer made, the step's record (its value and its event)
    // as JSON, and one INSERT of it, no transaction, no read back: SQLite's writes coalesced by the
    // runtime as for any object (nothing awaits a sync between steps). Alternated with the real
    // step, 6 rounds each, as the side-by-side of a bare SQLite Durable Object.
    const floors: number[] = [];
    const steps: number[] = [];
    for (let round = 0; round < 6; round++) {
      const { stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      floors.push(
        await runInDurableObject(typed(stub), (_instance, state) => {
          const { sql } = state.storage;
          sql.exec("CREATE TABLE IF NOT EXISTS floor (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
          const turns = script(1000);
          const started = performance.now();
          let k = 0;
          for (const [i, turn] of turns.entries()) {
            sql.exec("INSERT INTO floor (k, v) VALUES (?, ?)", ++k, JSON.stringify({ step: i + 1, value: turn, event: { type: "model", step: i + 1, ...turn } }));
            const call = "toolCalls" in turn ? turn.toolCalls[0] : undefined;
            if (call === undefined) continue;
            const answer = String(Number(call.input.expression.split(" + ")[0]) + 1);
            sql.exec("INSERT INTO floor (k, v) VALUES (?, ?)", ++k, JSON.stringify({ step: i + 1, value: { content: answer }, event: { type: "tool-result", callId: call.id, summary: answer } }));
          }
          return (performance.now() - started) / k;
        }),
      );
      const { stub: real } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      const ms = await slice(real, 5000);
      steps.push(ms / (await journalKeys(real)).length);
    }
    const ratios = steps.map((value, i) => value / floors[i]!);
    log(`(1e) whole step vs the no-sync floor (one INSERT of the step's JSON), 6 rounds of 2001 steps, alternated: step median ${(median(steps) * 1000).toFixed(1)} µs, floor ${(median(floors) * 1000).toFixed(1)} µs; step/floor ${summary(ratios)}`);
  });

  it("(1g) a slice's step rows: one statement each, three to a statement (100 bound parameters), all in one json_each statement whose trigger runs a row at a time, or one set-based statement", async () => {
    // 498 rows of a typical step's size (a 300-character value, three events), written the three
    // ways in fresh objects, the order turned each round; per row, and the calls each way makes.
    const ROWS = 498;
    const rowsFrom = (seq: number): StepRow[] =>
      Array.from({ length: ROWS }, (_v, i) => ({
        key: `s1/tool/${i}/c${i}`, value: JSON.stringify({ content: "x".repeat(300), n: i }), cost: 0.0001 * i, usd: 0.0001 * i, steps: i % 2,
        at: new Date().toISOString(), seq: seq + 3 * i + 1, events: Array.from({ length: 3 }, (_e, k) => ({ body: JSON.stringify({ type: "tool-result", k, summary: "y".repeat(150) }), dedupe: k === 0 ? `s1/held/${i}` : null })),
      }));
    const triple = `INSERT INTO step_commit_v1 VALUES ${Array.from({ length: 3 }, () => `(${Array.from({ length: 27 }, () => "?").join(",")})`).join(",")}`;
    const rowByRow = `INSERT INTO step_commit_v1 SELECT ${Array.from({ length: 27 }, (_v, i) => `value->>${i}`).join(",")} FROM json_each(?)`;
    const WAYS: { name: string; calls: number; write: (sql: SqlStorage, rows: StepRow[]) => void }[] = [
      { name: "one statement a row", calls: ROWS, write: (sql, rows) => rows.forEach((row) => insertStepRow(sql, row)) },
      { name: "three rows a statement", calls: ROWS / 3, write: (sql, rows) => { for (let i = 0; i < rows.length; i += 3) sql.exec(triple, ...rows.slice(i, i + 3).flatMap(stepRowValues)); } },
      { name: "one json_each statement, the trigger a row (h46-batch)", calls: 1, write: (sql, rows) => sql.exec(rowByRow, `[${rows.map((row) => JSON.stringify(stepRowValues(row))).join(",")}]`) },
      { name: "one set-based statement (step_rows_v2)", calls: 1, write: (sql, rows) => insertStepRows(sql, rows.map((row) => ({ row, json: stepRowJson(row) }))) },
    ];
    const figures = new Map<string, number[]>(WAYS.map((way) => [way.name, []]));
    for (let round = 0; round < 2 + 9; round++) {
      for (const way of round % 2 === 0 ? WAYS : [...WAYS].reverse()) {
        const { stub } = await createRun({ script: [{ text: "x" }] });
        const ms = await runInDurableObject(typed(stub), (_instance, state) => {
          const rows = rowsFrom(lastSeq(state.storage.sql));
          const started = performance.now();
          way.write(state.storage.sql, rows);
          return performance.now() - started;
        });
        expect(await journalKeys(stub)).toHaveLength(ROWS);
        if (round >= 2) figures.get(way.name)!.push((ms * 1000) / ROWS);
      }
    }
    const single = median(figures.get(WAYS[0]!.name)!);
    for (const way of WAYS) {
      const perRow = median(figures.get(way.name)!);
      log(`(1g) ${way.name}: ${perRow.toFixed(1)} µs a row (median of 9 rounds of ${ROWS}; ${(perRow / single).toFixed(2)}× one statement a row), ${way.calls} calls into SQLite`);
    }
  });

  it("(2) commit-to-socket latency", async () => {
    // A model that takes 2 ms, as any real one takes some time: the object yields between steps,
    // as it does in service, so each event can leave when its step commits.
    const turns = script(400).map((turn) => ({ ...turn, delayMs: 2 }));
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 401, script: turns });
    const watcher = await watch(stub, 1);
    await slice(stub, 1000);
    await watcher.next((frame) => frame.type === "end");
    // `at` is the commit time of the step's transaction; arrival is when the socket delivered it.
    const delays = watcher.frames.flatMap((frame, i) =>
      frame.type === "model" || frame.type === "tool-result" ? [watcher.arrivals[i]! - Date.parse(String(frame.at))] : [],
    );
    log(`(2) commit → event on a connected WebSocket (same machine clock, 1 ms resolution), ${delays.length} events: p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, p99 ${percentile(delays, 99)} ms, max ${Math.max(...delays)} ms`);
    watcher.close();
  });

  it("(3) resume after eviction of a 500-step run until the next new step starts", async () => {
    const times: number[] = [];
    for (let round = 0; round < 7; round++) {
      const { id, stub } = await createRun({ tools: ["calculator"], maxSteps: 1001, script: script(1000) });
      await slice(stub, 500);
      await evictDurableObject(stub);
      const fresh = stubFor(id);
      // A new instance: the first slice replays 500 steps from SQLite and runs one new step.
      times.push(await slice(fresh, 1));
      expect(await journalKeys(fresh)).toHaveLength(501);
    }
    log(`(3) evicted 500-step run → next new step done (replay + 1 step), 7 runs: median ${median(times)} ms, min ${Math.min(...times)} ms, max ${Math.max(...times)} ms`);
  });
});
