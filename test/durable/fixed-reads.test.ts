// What a run's object asks SQLite and the platform besides its steps, each ask a call that a view,
// a creation and an alarm pay for: a table seen to exist is not looked up again until it is
// dropped; a view does not ask for the alarm this instance set itself; an outbox with nothing due
// is one read, not one per channel.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Outbox } from "../../src/durable/outbox/outbox";
import { insertOutbox } from "../../src/durable/outbox/outbox-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { dropTable, tableExists } from "../../src/durable/storage/sqlite-tables";
import { createRun, valueOf, type RunStub } from "../helpers/runs";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

/** Runs `work` with every `sql.exec` of the object counted (the object's own code included), and returns the count. */
async function execsDuring(stub: RunStub, work: (instance: RunObject, state: DurableObjectState) => unknown): Promise<number> {
  return runInDurableObject(typed(stub), async (instance, state) => {
    const { sql } = state.storage;
    const exec = sql.exec.bind(sql);
    let calls = 0;
    Object.defineProperty(sql, "exec", { configurable: true, value: (query: string, ...bindings: SqlStorageValue[]) => (calls++, exec(query, ...bindings)) });
    try {
      await work(instance, state);
    } finally {
      delete (sql as { exec?: unknown }).exec;
    }
    return calls;
  });
}

describe("the object's reads beside its steps", () => {
  it("a table seen to exist is not looked up again, until dropTable drops it", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    await runInDurableObject(typed(stub), (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("CREATE TABLE IF NOT EXISTS fixed_reads_probe (n INTEGER)");
      expect(tableExists(sql, "fixed_reads_probe")).toBe(true);
    });
    expect(await execsDuring(stub, (_instance, state) => expect(tableExists(state.storage.sql, "fixed_reads_probe")).toBe(true))).toBe(0);
    await runInDurableObject(typed(stub), (_instance, state) => dropTable(state.storage.sql, "fixed_reads_probe"));
    expect(await execsDuring(stub, (_instance, state) => expect(tableExists(state.storage.sql, "fixed_reads_probe")).toBe(false))).toBe(1);
  });

  it("a view does not ask for the alarm this instance set, at the creation or at the end of an alarm", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    const asks = (work: (instance: RunObject) => Promise<unknown>) =>
      runInDurableObject(typed(stub), async (instance, state) => {
        const { storage } = state;
        const getAlarm = storage.getAlarm.bind(storage);
        let calls = 0;
        Object.defineProperty(storage, "getAlarm", { configurable: true, value: (...args: Parameters<typeof getAlarm>) => (calls++, getAlarm(...args)) });
        try {
          await work(instance);
        } finally {
          delete (storage as { getAlarm?: unknown }).getAlarm;
        }
        return calls;
      });
    // The creation set the alarm in this instance.
    expect(await asks(async (instance) => valueOf(await instance.view()))).toBe(0);
    await runDurableObjectAlarm(stub);
    // The alarm that fired set the next (the run's retention) before it ended.
    expect(await asks(async (instance) => valueOf(await instance.view()))).toBe(0);
  });

  it("an outbox with nothing due is one read; one with a row due delivers it", async () => {
    const { stub } = await createRun({ script: [{ text: "x" }] });
    const sent: string[] = [];
    const outboxOf = (sql: SqlStorage, now: number) =>
      new Outbox({
        sql,
        now: () => now,
        random: () => 0.5,
        sendInbox: async (subject) => void sent.push(subject),
        sendSchedule: async () => undefined,
        sendAgentRuns: async () => undefined,
        sendExperiment: async () => undefined,
        sendSpans: async () => ({ ok: true, rejected: 0 }),
        sendParent: async () => undefined,
        sendWebhook: async () => ({ status: 200 }),
        onSettled: () => undefined,
      });
    const reads = await execsDuring(stub, (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("DELETE FROM outbox");
      insertOutbox(sql, { channel: "inbox", subject: "later", eventId: "e1", type: "run-resumed", version: 1, body: JSON.stringify({ type: "run-resumed", run: { id: "r" } }) }, 1_000);
    });
    expect(reads).toBeGreaterThan(0);
    expect(await execsDuring(stub, (_instance, state) => outboxOf(state.storage.sql, 999).deliverDue())).toBe(1);
    await runInDurableObject(typed(stub), async (_instance, state) => {
      const outbox = outboxOf(state.storage.sql, 1_000);
      outbox.deliverDue();
      await outbox.idle();
    });
    expect(sent).toEqual(["later"]);
  });
});
