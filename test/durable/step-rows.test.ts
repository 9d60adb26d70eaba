// The step rows a slice writes together (src/durable/engine/journal/step-rows.ts): steps that answer
// at once are one statement, written before anything could see them — a work that waits (an HTTP
// tool on a local server), an event written outside a step, the database's size, a step that is not
// deferred, the loop's end, the slice's end, a slice that fails — and their events are sent only once
// they are written. The batch statement stores what one statement a row stores, byte for byte; a
// failing row leaves written what the single statements would have; and a run killed at any call
// into SQLite (the batches' included) ends as a run never killed, no finished step done again.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, inject, it, vi } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import { createJournal, deferrable } from "../../src/durable/engine/journal/journal";
import { insertStepRows, stepRowJson } from "../../src/durable/engine/journal/step-batch";
import { insertStepRow, type StepRow } from "../../src/durable/engine/journal/step-commit";
import { addUsd } from "../../src/lib/money";
import { ModelCalls } from "../../src/durable/engine/incoming/model-calls";
import { StepRows } from "../../src/durable/engine/journal/step-rows";
import { SliceLimits } from "../../src/durable/engine/storage-limits";
import { emitEvent } from "../../src/durable/events/log/emit-event";
import { HeldEvents } from "../../src/durable/events/log/held-events";
import { lastSeq, type LoggedEvent } from "../../src/durable/events/log/event-log";
import { storedRunEvent } from "../../src/durable/events/log/run-events";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import type { StepOutput } from "../../src/loop/types";
import { engineFor } from "../helpers/engine";
import { Killed, killedAt } from "../helpers/killed-at";
import { createRun, drive, journalKeys, storedEvents, viewOf, type RunStub } from "../helpers/runs";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const server = () => inject("toolServerUrl");
const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
const httpTool = (name: string, path: string) => ({ type: "http" as const, name, description: `${name}.`, inputSchema: { type: "object" }, url: `${server()}${path}` });
const BATCH = "INSERT INTO step_rows_v2 VALUES";

function keysIn(sql: SqlStorage): string[] {
  return sql.exec<{ key: string }>("SELECT key FROM journal ORDER BY rowid").toArray().map((row) => row.key);
}

/** The state with the statements that write step rows counted: `batches` (several rows), `single` (one row). */
function countedRows(state: DurableObjectState): { state: DurableObjectState; writes: { batches: number; single: number } } {
  const writes = { batches: 0, single: 0 };
  const watched = watchedState(state, {
    exec: (query) => {
      if (query.startsWith(BATCH)) writes.batches++;
      else if (query.startsWith("INSERT INTO step_commit_v1 VALUES")) writes.single++;
    },
  });
  return { state: watched, writes };
}

/** A journal wired as the slice wires it, with its own buffer: what it sends, and the rows it holds. */
function bufferedJournal(state: DurableObjectState) {
  const engine = engineFor(state);
  const rows = new StepRows(state.storage.sql);
  engine.stepRows = rows;
  const sent: number[] = [];
  const step = createJournal({
    sql: state.storage.sql,
    storage: state.storage,
    prefix: "s1/",
    stored: new Map(),
    signal: new AbortController().signal,
    beforeNewStep: () => {},
    toRunEvent: (event) => storedRunEvent(event, 0),
    rows,
    onCommit: (events) => rows.whenWritten(() => sent.push(...events.map((event) => event.seq))),
  });
  return { engine, rows, sent, step };
}

const answer = (key: string): StepOutput<string> => ({
  value: key,
  costUsd: 0,
  events: [{ type: "tool-result", key, step: 1, callId: key, name: "calculator", ok: true, summary: "2", costUsd: 0 }],
});

describe("step rows written together", () => {
  it("the batch statement stores what one statement a row stores", async () => {
    const costs = [0.1 + 0.2, 1 / 3, 1e-7, 123.456789, Math.PI / 1e5, 2 ** -40, 0];
    const rowsOf = (seq: number): StepRow[] =>
      costs.map((cost, i) => ({
        key: `s1/tool/1/x${i}`,
        value: JSON.stringify({ text: `é "quoted"\n\u0001 ${i}`, n: cost }),
        cost,
        usd: Math.round(cost * 1e6) / 1e6,
        steps: i % 2,
        ...(i === 2 ? { stopReason: "tool_use" } : {}),
        at: `2026-12-06T22:00:0${i}.000Z`,
        seq: seq + 2 * i + 1,
        events: [
          { body: JSON.stringify({ type: "tool-result", n: i, text: "ü \\ \"" }), dedupe: i === 1 ? `s1/held/${i}` : null },
          { body: JSON.stringify({ type: "step", i }), dedupe: null },
        ],
        ...(i === 3 ? { span: { key: `span-${i}`, seed: JSON.stringify({ seed: i }), nowMs: 1_765_000_000_123 } } : {}),
      }));
    const stored = async (write: (sql: SqlStorage, rows: StepRow[]) => void) => {
      const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
      return runInDurableObject(typed(stub), (_instance, state) => {
        const { sql } = state.storage;
        write(sql, rowsOf(lastSeq(sql)));
        const all = (query: string) => sql.exec(query).toArray();
        return {
          journal: all("SELECT key, value, cost, typeof(cost) AS t FROM journal ORDER BY rowid"),
          events: all("SELECT seq, dedupe, at, body, typeof(seq) AS t FROM event WHERE seq > 1 ORDER BY seq"),
          run: all("SELECT steps, spent_usd, typeof(spent_usd) AS t, stop_reason, updated_at FROM run"),
          outbox: all("SELECT channel, event_id, type, version, body, created_at, next_at, typeof(next_at) AS t FROM outbox WHERE channel = 'otel'"),
        };
      });
    };
    const single = await stored((sql, rows) => rows.forEach((row) => insertStepRow(sql, row)));
    const batched = await stored((sql, rows) => insertStepRows(sql, rows.map((row) => ({ row, json: stepRowJson(row) }))));
    expect(single.journal).toHaveLength(costs.length);
    expect(single.outbox).toHaveLength(1);
    expect(batched).toEqual(single);
  });

  it("the run's spend added once for a batch is what one addition a row gives (whole micro-dollars, SQLite's ROUND)", async () => {
    // The batch's trigger sets spent_usd = ROUND(spent_usd + the rows' sum, 6) once; the single
    // trigger, ROUND(spent_usd + usd, 6) a row (step-batch.ts says why both are the same double).
    const micros = (max: number) => fc.integer({ min: 0, max }).map((n) => n / 1e6);
    const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      const rounded = (a: number, b: number) => sql.exec<{ v: number }>("SELECT ROUND(? + ?, 6) AS v", a, b).one().v;
      fc.assert(
        fc.property(micros(1e13), fc.array(fc.oneof(micros(1e3), micros(1e9)), { minLength: 2, maxLength: 60 }), (spent, costs) => {
          const oneByOne = costs.reduce((sum, cost) => rounded(sum, cost), spent);
          expect(Object.is(rounded(spent, addUsd(...costs)), oneByOne)).toBe(true);
        }),
        { numRuns: 400 },
      );
    });
  });

  it("a slice's steps that answer at once are one statement, and each event is sent only once it is written", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc(1), calc(2), calc(3), { text: "Done." }] });
    const { writes, sends } = await runInDurableObject(typed(stub), async (_instance, state) => {
      const { state: countedState, writes } = countedRows(state);
      const sends: { seqs: number[]; stored: number }[] = [];
      class Recording extends Fanout {
        override sendLogged(events: LoggedEvent[]): void {
          sends.push({ seqs: events.map((event) => event.seq), stored: lastSeq(state.storage.sql) });
          super.sendLogged(events);
        }
      }
      await runSlice(engineFor(countedState, { fanout: new Recording(countedState) }), new AbortController());
      return { writes, sends };
    });
    expect(writes).toEqual({ batches: 1, single: 0 });
    const sent = sends.flatMap((send) => send.seqs);
    // Every event after run-started, in order, none twice, none before the statement that stores it.
    expect(sent).toEqual(Array.from({ length: sent.length }, (_v, i) => i + 2));
    for (const send of sends) expect(Math.max(...send.seqs)).toBeLessThanOrEqual(send.stored);
    expect((await storedEvents(stub)).at(-1)).toMatchObject({ type: "end", seq: sent.length + 1 });
  });

  it("a model call that answers at once takes the slice's signal; one that may wait, a controller an interrupt can abort", async () => {
    const asked = async (script: Record<string, unknown>[]) => {
      const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
      // Released before the slice: a turn with a hold marks its script as one that waits, and goes through at once.
      expect(await typed(stub).releaseHold("go")).toMatchObject({ ok: true });
      const keys = await runInDurableObject(typed(stub), async (_instance, state) => {
        const keys: string[] = [];
        class Counted extends ModelCalls {
          override signalFor(key: string, slice: AbortSignal) {
            if (key.startsWith("model/")) keys.push(key);
            return super.signalFor(key, slice);
          }
        }
        await runSlice(engineFor(state, { modelCalls: new Counted() }), new AbortController());
        return keys;
      });
      expect(await viewOf(stub)).toMatchObject({ status: "finished" });
      return keys;
    };
    expect(await asked([calc(1), calc(2), { text: "Done." }])).toEqual([]);
    expect(await asked([calc(1), { ...calc(2), hold: "go" }, { text: "Done." }])).toEqual(["model/1", "model/2", "model/3"]);
  });

  it("a tool that waits (an HTTP tool on a local server) is called only once the steps before it are written", async () => {
    const body = { tools: ["calculator" as const, httpTool("echo", "/echo")], minAnswerChars: 0, script: [calc(1), { toolCalls: [{ id: "c2", name: "echo", input: {} }] }, { text: "Done." }] };
    const { stub } = await createRun(body);
    const { seen, writes } = await runInDurableObject(typed(stub), async (_instance, state) => {
      const { state: countedState, writes } = countedRows(state);
      const seen: { journal: string[]; events: string[] }[] = [];
      const fetching: typeof fetch = (input, init) => {
        const { sql } = state.storage;
        seen.push({ journal: keysIn(sql), events: sql.exec<{ body: string }>("SELECT body FROM event ORDER BY seq").toArray().map((row) => (JSON.parse(row.body) as { type: string }).type) });
        return fetch(input, init);
      };
      await runSlice(engineFor(countedState, { fetch: fetching }), new AbortController());
      return { seen, writes };
    });
    expect(seen).toEqual([
      { journal: ["s1/model/1", "s1/tool/1/c1", "s1/model/2"], events: ["run-started", "step-start", "model", "tool-call", "tool-result", "step", "step-start", "model"] },
    ]);
    // The three before the call together, the two after it together.
    expect(writes).toEqual({ batches: 2, single: 0 });
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "Done." });
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"]);
  });

  it("is written before an event written outside a step, the database's size, and the work of a step that is not deferred", async () => {
    const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), async (_instance, state) => {
      const { sql } = state.storage;
      const { engine, rows, sent, step } = bufferedJournal(state);
      const before = lastSeq(sql);
      await step("tool/1/a", async () => answer("a"));
      await step("tool/1/b", async () => answer("b"));
      expect(rows.size).toBe(2);
      expect(keysIn(sql)).toEqual([]);
      expect(sent).toEqual([]);
      // An event outside a step: after the rows, its seq after theirs.
      emitEvent(engine, { type: "elicitation-failed", callId: "x", message: "m" }, "s1/test/outside");
      expect(keysIn(sql)).toEqual(["s1/tool/1/a", "s1/tool/1/b"]);
      expect(sent).toEqual([before + 1, before + 2]);
      expect(lastSeq(sql)).toBe(before + 3);

      // The database's size, asked before a new step.
      await step("tool/1/c", async () => answer("c"));
      expect(rows.size).toBe(1);
      new SliceLimits(engine).check();
      expect(rows.size).toBe(0);
      expect(keysIn(sql)).toContain("s1/tool/1/c");

      // A step that is not deferred (a compaction, a take, an async call's wait, a guardrail asked of a model): before its work.
      await step("tool/1/d", async () => answer("d"));
      expect(deferrable("compact/1")).toBe(false);
      let seenByWork: string[] = [];
      await step("compact/1", async () => {
        seenByWork = keysIn(sql);
        return { value: null, costUsd: 0, events: [] };
      });
      expect(seenByWork).toContain("s1/tool/1/d");
      expect(sent).toEqual([before + 1, before + 2, before + 4, before + 5]);
    });
  });

  it("a failing row: the rows before it are written, it is held again, the rows after it are dropped, and its error is thrown", async () => {
    const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      // A journal row of the key the second step will write: its statement fails (the key is taken).
      sql.exec("INSERT INTO journal (key, value, cost) VALUES ('s1/tool/1/b', '\"old\"', 0)");
      const seq = lastSeq(sql);
      const row = (key: string, n: number): StepRow => ({ key, value: `"${key}"`, cost: 0, usd: 0, steps: 0, at: "2026-12-06T00:00:00.000Z", seq: seq + n, events: [{ body: JSON.stringify({ seq: seq + n }), dedupe: null }] });
      const rows = new StepRows(sql);
      const done: string[] = [];
      rows.add(row("s1/tool/1/a", 1), () => done.push("a failed"));
      rows.whenWritten(() => done.push("after a"));
      rows.add(row("s1/tool/1/b", 2), () => done.push("b failed"));
      rows.whenWritten(() => done.push("after b"));
      rows.add(row("s1/tool/1/c", 3), () => done.push("c failed"));
      expect(() => rows.flush()).toThrow(/UNIQUE/);
      expect(done).toEqual(["after a", "b failed"]);
      expect(keysIn(sql)).toEqual(["s1/tool/1/b", "s1/tool/1/a"]);
      expect(lastSeq(sql)).toBe(seq + 1);
      expect(rows.size).toBe(0);
      rows.flush();
    });
  });

  it("a failing step in a batch: the events it took are held again, those told after it are forgotten", async () => {
    const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), async (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("INSERT INTO journal (key, value, cost) VALUES ('s1/tool/1/b', '\"old\"', 0)");
      const held = new HeldEvents(new Set(), () => [], () => undefined);
      const rows = new StepRows(sql);
      const step = createJournal({
        sql, storage: state.storage, prefix: "s1/", stored: new Map(), signal: new AbortController().signal, beforeNewStep: () => {},
        toRunEvent: (event) => storedRunEvent(event, 0), held, rows, onCommit: () => undefined,
      });
      const told = (name: string) => held.hold({ type: "tool-call", step: 1, callId: name, name: "calculator", input: {} }, `s1/tool-call/${name}`);
      for (const name of ["a", "b", "c"]) {
        told(name);
        await step(`tool/1/${name}`, async () => answer(name));
      }
      told("d");
      expect(() => rows.flush()).toThrow(/UNIQUE/);
      expect(keysIn(sql)).toEqual(["s1/tool/1/b", "s1/tool/1/a"]);
      expect(held.take().events.map((event) => event.dedupe)).toEqual(["s1/tool-call/b"]);
    });
  });

  it("rows still buffered when the code yields are written by the timer, and a failure there is thrown by the next flush", async () => {
    const { stub } = await createRun({ tools: ["calculator"], script: [{ text: "Done." }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      const seq = lastSeq(sql);
      const row = (key: string, n: number): StepRow => ({ key, value: `"${key}"`, cost: 0, usd: 0, steps: 0, at: "2026-12-06T00:00:00.000Z", seq: seq + n, events: [] });
      vi.useFakeTimers();
      try {
        const rows = new StepRows(sql);
        rows.add(row("s1/tool/1/a", 1), () => undefined);
        vi.runOnlyPendingTimers();
        expect(keysIn(sql)).toEqual(["s1/tool/1/a"]);
        rows.add(row("s1/tool/1/a", 2), () => undefined);
        vi.runOnlyPendingTimers();
        expect(() => rows.flush()).toThrow(/UNIQUE/);
        rows.flush();
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it("a slice that ends between steps or on a failure writes its rows first", async () => {
    const steps = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc(1), calc(2), { text: "Done." }] });
    await runInDurableObject(typed(steps.stub), (_instance, state) => runSlice(engineFor(state, { sliceSteps: 3 }), new AbortController()));
    expect(await journalKeys(steps.stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2"]);

    const failing = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc(1), { error: "The model broke." }] });
    await runInDurableObject(typed(failing.stub), (_instance, state) => runSlice(engineFor(state), new AbortController()));
    expect(await journalKeys(failing.stub)).toEqual(["s1/model/1", "s1/tool/1/c1"]);
    const events = await storedEvents(failing.stub);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, i) => i + 1));
    expect(events.map((event) => event.type)).toEqual(["run-started", "step-start", "model", "tool-call", "tool-result", "step", "step-start", "end"]);
    expect(await viewOf(failing.stub)).toMatchObject({ status: "failed" });
  });
});

describe("step rows written together, killed at their statement", () => {
  const body = () => ({
    tools: ["calculator" as const, httpTool("count", "/count")],
    minAnswerChars: 0,
    script: [calc(1), { toolCalls: [{ id: "c2", name: "count", input: {} }] }, calc(3), { text: "Done." }],
  });
  const keys = ["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3", "s1/tool/3/c3", "s1/model/4"];
  const CALL = "s1/tool/2/c2";
  const asked = async (id: string) => ((await (await fetch(`${server()}/count?key=${encodeURIComponent(`${id}/${CALL}`)}`)).json()) as { count: number }).count;
  const log = async (stub: RunStub) => (await storedEvents(stub)).map((event) => `${event.seq} ${event.type}`);
  const globalFetch: typeof fetch = (input, init) => fetch(input, init);

  /** One slice killed at call `at` (killed-at.ts; its HTTP tool calls made with the global fetch). */
  const sliceKilledAt = (stub: RunStub, at: number) =>
    runInDurableObject(typed(stub), async (_instance, state) => {
      const killed = killedAt(state, at);
      await runSlice(engineFor(killed.state, { fetch: globalFetch }), new AbortController()).catch((error: unknown) => {
        if (!(error instanceof Killed)) throw error;
      });
    });

  it("a batch is written whole or not at all; resumed, the run ends as one never killed, and no finished step is done again", async () => {
    // A run never killed: where its batches are among its calls into SQLite, and what it ends with.
    const first = await createRun(body());
    const batches = await runInDurableObject(typed(first.stub), async (_instance, state) => {
      const at: number[] = [];
      let calls = 0;
      const watched = watchedState(state, { exec: (query) => void (++calls, query.startsWith(BATCH) && at.push(calls)) });
      await runSlice(engineFor(watched, { fetch: globalFetch }), new AbortController());
      return at;
    });
    expect(await journalKeys(first.stub)).toEqual(keys);
    const expected = await log(first.stub);
    expect((await storedEvents(first.stub)).find((event) => event.type === "tool-result" && event.callId === "c2")).toMatchObject({ ok: true, summary: "call 1" });
    // The three steps before the HTTP call, written before it is made; the four after it.
    expect(batches).toHaveLength(2);

    for (const [n, at] of batches.entries()) {
      const { id, stub } = await createRun(body());
      await sliceKilledAt(stub, at);
      // Killed at the first batch: nothing written, and the HTTP call never made; at the second, the first batch and the call made.
      expect(await journalKeys(stub), `killed at batch ${n + 1}`).toEqual(keys.slice(0, n === 0 ? 0 : 3));
      expect(await asked(id), `killed at batch ${n + 1}`).toBe(n);
      await evictDurableObject(stub);
      await drive(stub);
      expect(await viewOf(stub), `killed at batch ${n + 1}`).toMatchObject({ status: "finished", finalText: "Done." });
      expect(await journalKeys(stub)).toEqual(keys);
      expect(await log(stub), `killed at batch ${n + 1}`).toEqual(expected);
      // Made once more only when its result was lost with the batch that held it.
      expect(await asked(id), `killed at batch ${n + 1}`).toBe(n + 1);
    }
  });
});
