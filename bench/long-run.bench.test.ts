// A 2,000-step run inside workerd (`npm run bench:long`): it finishes; storage per step stays
// flat as it grows; replay on resume (evicted object → first new step) stays under 200 ms.
// Figures are printed, never asserted; the assertions are that the run finished, its journal
// holds every step once and its event log is gap-free.
//
// A "model step" is one model call (2,000 of them, each but the last calling the built-in
// calculator), so the journal holds 3,999 steps. Slices are cut by hand (runSlice with a step
// count, as bench/engine.bench.test.ts does) so the database can be measured between them; the
// last part is left to the run's own alarms.
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSlice } from "../src/durable/engine/engine";
import { eventsAfter } from "../src/durable/events/log/event-log";
import { Fanout } from "../src/durable/events/readers/fanout";
import type { RunObject } from "../src/durable/run/run-object";
import { createRun, journalKeys, stubFor, viewOf, type RunStub } from "../test/helpers/runs";

const MODEL_STEPS = 2000;
const WINDOW = 250; // journal steps between two measurements of the database
const REPLAY_TARGET_MS = 200;

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const log = (line: string) => console.log(`[bench:long] ${line}`);

function script(modelSteps: number) {
  const usage = { inputTokens: 120, outputTokens: 12 };
  const calls = Array.from({ length: modelSteps - 1 }, (_v, i) => ({
    text: `Step ${i + 1}.`,
    toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }],
    costUsd: 0.0001,
    usage,
  }));
  return [...calls, { text: "done", costUsd: 0.0001, usage }];
}

/** Runs up to `steps` new journal steps; answers the time inside the object and the time seen from outside (with the object's start-up). */
async function slice(stub: RunStub, steps: number): Promise<{ inside: number; outside: number }> {
  const started = performance.now();
  const inside = await runInDurableObject(typed(stub), async (_instance, state) => {
    const t = performance.now();
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: steps }, new AbortController());
    return performance.now() - t;
  });
  return { inside, outside: performance.now() - started };
}

const databaseSize = (stub: RunStub) => runInDurableObject(typed(stub), (_instance, state) => state.storage.sql.databaseSize);

describe("a 2,000-step run", () => {
  it("finishes; storage per step stays flat; replay on resume stays under 200 ms", async () => {
    const { id, stub } = await createRun({ tools: ["calculator"], maxSteps: MODEL_STEPS, script: script(MODEL_STEPS) });
    const journalSteps = 2 * MODEL_STEPS - 1;
    const sizes: { steps: number; bytes: number }[] = [{ steps: 0, bytes: await databaseSize(stub) }];
    const replays: { steps: number; inside: number; outside: number }[] = [];
    let done = 0;
    let current = stub;
    // Up to the last 10 steps in windows; after about every 1,000 journal steps (and before the
    // last 10) the object is evicted and the first slice of the new instance (replay + one step) is timed.
    const checkpoints = [1000, 2000, 3000, journalSteps - 10];
    while (done < journalSteps - 10) {
      const take = Math.min(WINDOW, journalSteps - 10 - done);
      await slice(current, take);
      done += take;
      sizes.push({ steps: done, bytes: await databaseSize(current) });
      if (checkpoints[0] !== undefined && done >= checkpoints[0]) {
        checkpoints.shift();
        // At the end, five times over: one sample on a shared machine says little.
        for (let repeat = 0; repeat < (checkpoints.length === 0 ? 5 : 1); repeat++) {
          await evictDurableObject(current);
          current = stubFor(id);
          const timed = await slice(current, 1);
          done += 1;
          replays.push({ steps: done - 1, ...timed });
        }
      }
    }
    // The rest by the run's own alarm, as in service.
    for (let i = 0; i < 10 && (await runDurableObjectAlarm(current)); i++);
    const view = await viewOf(current);
    expect(view).toMatchObject({ status: "finished", steps: MODEL_STEPS, finalText: "done" });
    const keys = await journalKeys(current);
    expect(keys).toHaveLength(journalSteps);
    expect(new Set(keys).size).toBe(journalSteps);
    const seqs = await runInDurableObject(typed(current), (_instance, state) => eventsAfter(state.storage.sql, 0).map((event) => event.seq));
    expect(seqs).toEqual(seqs.map((_s, i) => i + 1));
    const finalBytes = await databaseSize(current);

    const perStep = sizes.slice(1).map((size, i) => (size.bytes - sizes[i]!.bytes) / (size.steps - sizes[i]!.steps));
    const steady = perStep.slice(1); // the first window also holds the tables' first pages
    const spread = Math.max(...steady) / Math.min(...steady);
    log(`runtime: workerd (vitest-plugin), clock resolution 1 ms`);
    log(`run: ${MODEL_STEPS} model steps + ${MODEL_STEPS - 1} calculator calls = ${journalSteps} journal steps, ${seqs.length} stored events; finished with status ${view.status}`);
    log(`database: ${sizes[0]!.bytes} bytes after creation (the run, its 2,000-turn script, the first segment); ${finalBytes} bytes at the end = ${(finalBytes / journalSteps).toFixed(0)} bytes per journal step`);
    log(`bytes per journal step, per ${WINDOW}-step window as the run grows: ${perStep.map((b) => b.toFixed(0)).join(", ")}`);
    log(`flat: windows after the first range ${Math.min(...steady).toFixed(0)}–${Math.max(...steady).toFixed(0)} bytes/step (max/min ${spread.toFixed(2)}); first vs last half mean ${(mean(steady.slice(0, steady.length / 2))).toFixed(0)} vs ${(mean(steady.slice(steady.length / 2))).toFixed(0)}`);
    for (const replay of replays) {
      const verdict = replay.inside < REPLAY_TARGET_MS ? "under" : "OVER";
      log(`replay on resume after ${replay.steps} journal steps (evicted → replay + 1 new step): ${replay.inside.toFixed(0)} ms inside the object, ${replay.outside.toFixed(0)} ms with the object's start-up — ${verdict} the ${REPLAY_TARGET_MS} ms target`);
    }
  });
});

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
