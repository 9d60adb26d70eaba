// What the steps read at every step without asking SQLite each time: whether a message waits
// (person/message-store.ts) and what the children spent (children/child-store.ts). Each is kept in
// memory after a read and forgotten by every write to its table — a write rolled back included —
// so a step never misses a message that came, or a child's spend that was reported, in between.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hasWaitingMessages, markTaken, storeMessage } from "../../src/durable/person/message-store";
import { applyReport, childrenSpent, markCreated, markNotCreated, registerChild } from "../../src/durable/children/child-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, type RunStub } from "../helpers/runs";

const AT = "2026-01-01T00:00:00.000Z";

function inObject<T>(stub: RunStub, work: (storage: DurableObjectStorage) => T): Promise<T> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_instance, state) => work(state.storage));
}

const message = (id: string) => ({ id, mode: "queue" as const, content: `hello ${id}` });
const child = (n: number) => ({ key: `s1/start/${n}/c${n}`, childId: `run_child${n}`, callId: `c${n}`, name: "helper", budgetUsd: 1, startedAt: n });

describe("the steps' reads kept in memory", () => {
  it("a message stored after the check found none is seen by the next check; a take and a take rolled back are too", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await inObject(stub, (storage) => {
      const { sql } = storage;
      expect(hasWaitingMessages(sql)).toBe(false);
      expect(hasWaitingMessages(sql)).toBe(false);
      storeMessage(sql, message("m1"), AT);
      expect(hasWaitingMessages(sql)).toBe(true);
      markTaken(sql, ["m1"], "s1/messages/1/0");
      expect(hasWaitingMessages(sql)).toBe(false);
      storeMessage(sql, message("m2"), AT);
      expect(() =>
        storage.transactionSync(() => {
          markTaken(sql, ["m2"], "s1/messages/2/0");
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(hasWaitingMessages(sql)).toBe(true);
    });
  });

  it("the children's spend read before a report, a new child or a failed creation is read again after it; a report rolled back changes nothing", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await inObject(stub, (storage) => {
      const { sql } = storage;
      const spent = () => childrenSpent(sql);
      expect(spent()).toBe(0);
      registerChild(sql, child(1));
      markCreated(sql, child(1).key, "running");
      expect(spent()).toBe(0);
      applyReport(sql, { childId: "run_child1", version: 1, status: "running", spentUsd: 0.25 }, 10);
      expect(spent()).toBe(0.25);
      registerChild(sql, child(2));
      applyReport(sql, { childId: "run_child2", version: 1, status: "running", spentUsd: 0.125 }, 11);
      expect(spent()).toBe(0.375);
      applyReport(sql, { childId: "run_child1", version: 2, status: "finished", spentUsd: 0.5, end: { childId: "run_child1", status: "finished", hasFinal: true, spentUsd: 0.5 } }, 12);
      expect(spent()).toBe(0.625);
      expect(() =>
        storage.transactionSync(() => {
          applyReport(sql, { childId: "run_child2", version: 2, status: "running", spentUsd: 0.75 }, 13);
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(spent()).toBe(0.625);
      registerChild(sql, child(3));
      markNotCreated(sql, child(3).key, { childId: "run_child3", status: "failed", hasFinal: false, spentUsd: 0 }, 14);
      expect(spent()).toBe(0.625);
    });
  });
});
