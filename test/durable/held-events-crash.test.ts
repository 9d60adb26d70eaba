// The events a slice holds between its steps (src/durable/events/log/held-events.ts) are written with
// the next step's commit: a crash at any call into SQLite loses them with the step they were held
// for, never apart from it. The log a crash leaves holds the events of the steps committed and
// nothing of the step in flight (no `step-start` of a step that is not in the journal), and the run
// resumed writes each event it lost once: the log it ends with is the one a run never crashed
// writes, event for event, with its dedupe keys and no gap.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunObject } from "../../src/durable/run/run-object";
import { sliceKilledAt } from "../helpers/killed-at";
import { createRun, drive, journalKeys, viewOf, type RunStub } from "../helpers/runs";
import { stepLog, type LoggedRow } from "../helpers/step-log";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const turn = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
const body = { tools: ["calculator"], minAnswerChars: 0, script: [turn(1), turn(2), { text: "Done." }] };
const keys = ["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"];

/** The log a run of `body` writes, crashed or not. */
const expectedLog = stepLog(2);

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

describe("events held for the next commit, killed at each call into SQLite", () => {
  it("lose nothing but the step in flight, and the resumed run writes each event once", async () => {
    const total = await sliceKilledAt((await createRun(body)).stub, Number.POSITIVE_INFINITY);
    expect(total).toBeGreaterThan(keys.length);
    for (let at = 1; at <= total; at++) {
      const { stub } = await createRun(body);
      await sliceKilledAt(stub, at);
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
