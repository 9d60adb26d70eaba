// A push survives a crash at any point of its way, as the run's outbox does
// (inbox-convergence.test.ts). For a run that starts waiting, the whole world is aborted at each
// point of its push:
//
//   applied   the inbox applied the change and wrote its push in the same transaction, nothing sent
//   leased    the attempt's lease is written (the push is due again later), nothing sent
//   sent      the push service took the push, the inbox did not yet record it
//
// then the run's and the inbox's alarms alone (time moved on) must deliver it — at least once, and
// exactly once unless it was sent before the crash — and leave nothing to send.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboxChange } from "../../src/api/rpc/inbox-rpc";
import type { InboxEvent } from "../../src/api/types";
import { runSlice } from "../../src/durable/engine/engine";
import { applyChanges, migrateInbox } from "../../src/durable/inbox/inbox-store";
import { leasePush, pendingPushes } from "../../src/durable/push/push-outbox-store";
import { queuePushes } from "../../src/durable/push/push-queue";
import { pushSender } from "../../src/durable/push/push-sender";
import { subscriptionOf } from "../../src/durable/push/subscription-store";
import { pendingRows } from "../../src/durable/outbox/outbox-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { deliverOutbox } from "../helpers/inbox";
import { inboxObject, pendingPushRows, retryPushesNow, subscribe } from "../helpers/push";
import { newRun, stubFor, valueOf } from "../helpers/runs";
import { newSubscription, pushesTo } from "../push-service/client";
import { TEST_API_TOKEN } from "../test-env";

type Point = "applied" | "leased" | "sent";

const asking = [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Go on?" } }] }, { text: "Done." }];

/** A run of `subject`, stepped until it waits, its changes still in its outbox (nothing delivered). */
async function waitingRun(subject: string): Promise<string> {
  const run = { ...newRun({ tools: ["ask"], script: asking, subject }), subject };
  const stub = stubFor(run.id);
  valueOf(await stub.create(run));
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    await runSlice(engineFor(state), new AbortController());
  });
  return run.id;
}

/** The run's pending changes, as its outbox would hand them to the inbox. */
async function pendingChanges(runId: string): Promise<InboxChange[]> {
  return runInDurableObject(stubFor(runId) as unknown as DurableObjectStub<RunObject>, (_instance, state) =>
    pendingRows(state.storage.sql, "inbox").map((row) => ({ version: row.version, event: JSON.parse(row.body) as InboxEvent })),
  );
}

/** Takes the push to `point` inside the inbox object, as apply() and the delivery would have, and stops there. */
async function stopAt(subject: string, changes: InboxChange[], point: Point): Promise<void> {
  await runInDurableObject(inboxObject(subject), async (_instance, state) => {
    const { sql } = state.storage;
    // apply()'s transaction, without the sends it starts after it.
    state.storage.transactionSync(() => {
      migrateInbox(sql);
      queuePushes(sql, applyChanges(sql, subject, changes, new Date().toISOString()), Date.now());
    });
    if (point === "applied") return;
    const [row] = pendingPushes(sql);
    leasePush(sql, row!.id, Date.now() + 15_000);
    if (point === "leased") return;
    const answer = await pushSender(env, fetch, Date.now)(subscriptionOf(sql, row!.endpoint)!, row!.payload, row!.runId);
    expect(answer.status).toBe(201);
  });
}

describe("a push survives a crash at any point", () => {
  it.each<[Point, number]>([
    ["applied", 1],
    ["leased", 1],
    ["sent", 2],
  ])('aborted at "%s": the alarms deliver it (%i push in all) and leave nothing to send', async (point, expected) => {
    const subject = `push-crash-${point}-${crypto.randomUUID()}`;
    const subscription = await newSubscription();
    expect((await subscribe(TEST_API_TOKEN, subscription, { subject })).status).toBe(201);
    const runId = await waitingRun(subject);
    await stopAt(subject, await pendingChanges(runId), point);
    await abortAllDurableObjects();
    // The run's outbox delivers the change again: the inbox holds it already, so it queues no second
    // push, but sends (or sets its alarm for) the one it holds.
    await deliverOutbox(stubFor(runId));
    await retryPushesNow(subject);
    expect(await pendingPushRows(subject)).toEqual([]);
    const pushes = await pushesTo(subscription.id);
    expect(pushes).toHaveLength(expected);
    expect(pushes.every((push) => push.verified)).toBe(true);
    expect(pushes.map((push) => push.payload)).toEqual(pushes.map(() => ({ runId, kind: "run.waiting", question: "Go on?", url: expect.stringMatching(/\/console\/#run_/) as unknown })));
  });
});
