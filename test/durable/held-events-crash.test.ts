// The events a slice holds between its steps (src/durable/events/held-events.ts) are written with
// the next step's commit: a crash at any call into SQLite loses them with the step they were held
// for, never apart from it. The log a crash leaves holds the events of the steps committed and
// nothing of the step in flight (no `step-start` of a step that is not in the journal), and the run
// resumed writes each event it lost once: the log it ends with is the one a run never crashed
// writes, event for event, with its dedupe keys and no gap.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { createRun, drive, journalKeys, viewOf, type RunStub } from "../helpers/runs";
import { stepLog, type LoggedRow } from "../helpers/step-log";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const turn = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
const body = { tools: ["calculator"], minAnswerChars: 0, script: [turn(1), turn(2), { text: "Done." }] };
const keys = ["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"];

/** The log a run of `body` writes, crashed or not. */
const expectedLog = stepLog(2);

class Killed extends Error {}

/**
 * The object's state whose SQLite dies at its `at`-th call (1-based): that call and every one after
 * it throw, as if the process were killed there; a transaction it was in is rolled back.
 * `calls()`: how many calls were made (the killed one included).
 */
function killedAt(state: DurableObjectState, at: number): { state: DurableObjectState; calls: () => number } {
  let calls = 0;
  const killed = () => new Killed(`killed at call ${at}`);
  const watched = watchedState(state, {
    exec: () => {
      if (++calls >= at) throw killed();
    },
    transaction: () => {
      if (calls >= at) throw killed();
    },
  });
  return { state: watched, calls: () => calls };
}

async function eventRows(stub: RunStub): Promise<LoggedRow[]> {
  return runInDurableObject(typed(stub), (_instance, state) =>
    state.storage.sql
      .exec<{ seq: number; dedupe: string | null; body: string }>("SELECT seq, dedupe, body FROM event ORDER BY seq")
      .toArray()
      .map((row, i) => {
        expect(row.seq).toBe(i + 1);
        return { type: (JSON.parse(row.body) as { type: string }).type, dedupe: row.dedupe };
      }),
  );
}

/** The calls into SQLite of the run's whole slice when nothing dies. */
async function callsOfOneSlice(): Promise<number> {
  const { stub } = await createRun(body);
  return runInDurableObject(typed(stub), async (_instance, state) => {
    const { state: counted, calls } = killedAt(state, Number.POSITIVE_INFINITY);
    await runSlice(engineFor(counted), new AbortController());
    return calls();
  });
}

describe("events held for the next commit, killed at each call into SQLite", () => {
  it("lose nothing but the step in flight, and the resumed run writes each event once", async () => {
    const total = await callsOfOneSlice();
    expect(total).toBeGreaterThan(keys.length);
    for (let at = 1; at <= total; at++) {
      const { stub } = await createRun(body);
      await runInDurableObject(typed(stub), async (_instance, state) => {
        // The slice records a failure when a call throws; that write dies too.
        await runSlice(engineFor(killedAt(state, at).state), new AbortController()).catch((error: unknown) => {
          if (!(error instanceof Killed)) throw error;
        });
      });
      const committed = await journalKeys(stub);
      expect(committed, `killed at call ${at}`).toEqual(keys.slice(0, committed.length));
      // What the kill left: the events of the committed steps, each step's own last; none held for the step in flight.
      const left = await eventRows(stub);
      expect(left, `killed at call ${at}`).toEqual(expectedLog.slice(0, left.length));
      expect(left.filter((row) => row.type === "step-start").length, `killed at call ${at}`).toBe(committed.filter((key) => key.includes("/model/")).length);
      expect(["run-started", "model", "tool-result", "end"], `killed at call ${at}: ends with ${left.at(-1)?.type}`).toContain(left.at(-1)?.type);

      await evictDurableObject(stub);
      await drive(stub);
      expect(await viewOf(stub), `killed at call ${at}`).toMatchObject({ status: "finished", finalText: "Done.", steps: 3 });
      expect(await journalKeys(stub)).toEqual(keys);
      expect(await eventRows(stub), `killed at call ${at}`).toEqual(expectedLog);
    }
  });
});
