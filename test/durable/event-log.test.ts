// The run's event log keeps its seq gap-free while the engine appends from the seq it remembers:
// a transaction that rolls back, an append from outside the engine in between, and a duplicate
// (small or spilled) never leave a gap, a clash or a chunk behind.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/api/types";
import {
  appendEvent,
  appendEventOutsideTransaction,
  appendStepEvents,
  eventsAfter,
  forgetSeqOnFailure,
  lastSeq,
  newestSeq,
} from "../../src/durable/events/log/event-log";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, type RunStub } from "../helpers/runs";

const AT = "2026-01-01T00:00:00.000Z";
const stepStart = (step: number): RunEvent => ({ type: "step-start", step, last: false });

function inObject<T>(stub: RunStub, work: (storage: DurableObjectStorage) => T): Promise<T> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_instance, state) => work(state.storage));
}

/** Every seq of the log, checked to be 1..n with each body's own seq. */
function seqs(sql: SqlStorage): number[] {
  return eventsAfter(sql, 0).map((event) => {
    expect((JSON.parse(event.text) as { seq: number }).seq).toBe(event.seq);
    return event.seq;
  });
}

const oneTo = (n: number) => Array.from({ length: n }, (_v, i) => i + 1);

describe("event log seq", () => {
  it("a step's transaction that rolls back after appending leaves no gap", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await inObject(stub, (storage) => {
      const { sql } = storage;
      const before = lastSeq(sql);
      appendEventOutsideTransaction(sql, stepStart(1), AT, "k/1");
      expect(() =>
        forgetSeqOnFailure(sql, () =>
          storage.transactionSync(() => {
            appendStepEvents(sql, [stepStart(2), stepStart(3)], AT);
            throw new Error("the step's write failed");
          }),
        ),
      ).toThrow("the step's write failed");
      expect(newestSeq(sql)).toBe(before + 1);
      appendStepEvents(sql, [stepStart(4)], AT);
      appendEventOutsideTransaction(sql, stepStart(5), AT, "k/5");
      expect(seqs(sql)).toEqual(oneTo(before + 3));
    });
  });

  it("an append from elsewhere, committed or rolled back, is seen by the next engine append", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await inObject(stub, (storage) => {
      const { sql } = storage;
      const before = lastSeq(sql);
      appendStepEvents(sql, [stepStart(1)], AT);
      appendEvent(sql, { type: "answered", callId: "c" }, AT);
      appendStepEvents(sql, [stepStart(2)], AT);
      expect(() =>
        storage.transactionSync(() => {
          appendEvent(sql, { type: "answered", callId: "d" }, AT);
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      appendEventOutsideTransaction(sql, stepStart(3), AT, "k/3");
      expect(seqs(sql)).toEqual(oneTo(before + 4));
      expect(newestSeq(sql)).toBe(lastSeq(sql));
    });
  });

  it("a duplicate is not logged and takes no seq, small or spilled", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await inObject(stub, (storage) => {
      const { sql } = storage;
      const before = lastSeq(sql);
      const big: RunEvent = { type: "tool-call", step: 1, callId: "c", name: "t", input: { text: "x".repeat(300 * 1024) } };
      expect(appendEventOutsideTransaction(sql, stepStart(1), AT, "k/small")?.seq).toBe(before + 1);
      expect(appendEventOutsideTransaction(sql, stepStart(1), AT, "k/small")).toBeUndefined();
      expect(appendEventOutsideTransaction(sql, big, AT, "k/big")?.seq).toBe(before + 2);
      const chunks = sql.exec("SELECT COUNT(*) AS n FROM spill").one().n;
      expect(appendEventOutsideTransaction(sql, big, AT, "k/big")).toBeUndefined();
      expect(appendEvent(sql, big, AT, "k/big")).toBeUndefined();
      expect(sql.exec("SELECT COUNT(*) AS n FROM spill").one().n).toBe(chunks);
      expect(appendEvent(sql, big, AT)?.seq).toBe(before + 3);
      expect(seqs(sql)).toEqual(oneTo(before + 3));
      expect(JSON.parse(eventsAfter(sql, before + 1)[0]!.text)).toEqual({ seq: before + 2, at: AT, ...big });
    });
  });
});
