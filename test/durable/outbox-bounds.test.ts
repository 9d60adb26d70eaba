// The outbox works in bounded pieces: one call to the subject's inbox carries at most 50 rows (the
// next call follows as soon as it answered), and one delivery round starts at most 10 webhook sends.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboxChange } from "../../src/api/rpc/inbox-rpc";
import { INBOX_BATCH_ROWS, Outbox, WEBHOOK_SENDS_PER_CALL } from "../../src/durable/outbox/outbox";
import { insertOutbox, pendingRows } from "../../src/durable/outbox/outbox-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun } from "../helpers/runs";

describe("outbox bounds", () => {
  it("hands the inbox 50 rows a call and starts 10 webhook sends a round", async () => {
    const { stub } = await createRun({ script: [{ text: "hi" }] });
    await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("DELETE FROM outbox");
      for (let i = 1; i <= 120; i++) insertOutbox(sql, { channel: "inbox", subject: "s", eventId: `e${i}`, type: "run-resumed", version: i, body: JSON.stringify({ type: "run-resumed", run: { id: "r" } }) }, 0);
      for (let i = 1; i <= 25; i++) insertOutbox(sql, { channel: "webhook", target: "deployment", eventId: `w${i}`, type: "run.finished", version: i, body: "{}" }, 0);
      const inboxCalls: number[] = [];
      const webhookSends: string[] = [];
      const outbox = new Outbox({
        sql,
        now: () => 1,
        random: () => 0.5,
        sendInbox: async (_subject, changes: InboxChange[]) => void inboxCalls.push(changes.length),
        sendSchedule: async () => undefined,
        sendAgentRuns: async () => undefined,
        sendSpans: async () => ({ ok: true, rejected: 0 }),
        sendParent: async () => undefined,
        sendExperiment: async () => undefined,
        sendWebhook: async (row) => {
          webhookSends.push(row.eventId);
          return { status: 200 };
        },
        onSettled: () => undefined,
      });
      outbox.deliverDue();
      expect(webhookSends).toHaveLength(WEBHOOK_SENDS_PER_CALL);
      await outbox.idle();
      // The inbox calls followed one another, 50 rows at most each, until none was left.
      expect(inboxCalls).toEqual([INBOX_BATCH_ROWS, INBOX_BATCH_ROWS, 20]);
      expect(pendingRows(sql, "inbox")).toEqual([]);
      // The next rounds start the next webhooks.
      outbox.deliverDue();
      outbox.deliverDue();
      await outbox.idle();
      expect(webhookSends).toEqual(Array.from({ length: 25 }, (_v, i) => `w${i + 1}`));
    });
  });
});
