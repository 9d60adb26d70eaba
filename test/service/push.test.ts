// Web Push through the whole Worker: a subject's browsers subscribe (user token, or the deployment
// token naming the subject), and when one of its runs starts waiting (and, where asked, finishes or
// fails) each subscription gets a push at the local push service, which checks it with code that is
// not the project's (test/push-service/server.ts): the VAPID JWT's signature, audience and expiry,
// and the payload decrypted with http_ece. Retries with backoff, 404 and 410 removing the
// subscription, and the limits of the routes.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { MAX_PUSH_PAYLOAD_BYTES } from "../../src/push/push-payload";
import { PUSH_SUBSCRIPTIONS_LIMIT } from "../../src/api/schemas/subject/push-schemas";
import { expectError } from "../helpers/http";
import { freshSubject, settle, userToken } from "../helpers/inbox";
import { inboxObject, listSubscriptions, pendingPushRows, pushIdle, retryPushesNow, subscribe } from "../helpers/push";
import { api, startRun } from "../helpers/service-client";
import { newSubscription, pushesTo, waitForPushes } from "../push-service/client";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];

function asking(subject: string, question = "Ship it?") {
  return { subject, messages: hi, tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question } }] }, { text: "Shipped." }] };
}

async function answer(runId: string, content = "Yes"): Promise<void> {
  const response = await api(`/v1/runs/${runId}/answer`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ callId: "q", content }) });
  expect(response.status, await response.clone().text()).toBe(202);
}

/** A run of `subject` that asks, driven until it waits, its change applied by the inbox, and the pushes it started back. */
async function waitingRun(subject: string, question?: string): Promise<string> {
  const { run } = await startRun(asking(subject, question));
  await settle(run.id);
  await pushIdle(subject);
  return run.id;
}

describe("the push routes", () => {
  it("GET /v1/push/key answers the VAPID public key to a user token and the deployment token; a run token is 403", async () => {
    const subject = freshSubject();
    for (const token of [await userToken(subject), TEST_API_TOKEN]) {
      const response = await api("/v1/push/key", token);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ publicKey: inject("vapidPublicKey") });
    }
    const { token: runToken } = await startRun({ messages: hi, script: [{ text: "done" }] });
    await expectError(await api("/v1/push/key", runToken), 403, "forbidden");
    await expectError(await api("/v1/push/key", "nobody-0123456789abcdefghijklmnopqrstuvwxyz"), 401, "unauthorized");
  });

  it("subscribes with a user token (its subject) or the deployment token (?subject=), renews at the same endpoint, lists and removes", async () => {
    const subject = freshSubject();
    const user = await userToken(subject);
    const first = await newSubscription();
    const created = await subscribe(user, first);
    expect(created.status, await created.clone().text()).toBe(201);
    expect(await created.json()).toMatchObject({ subscription: { endpoint: first.endpoint, events: ["run.waiting"] } });
    const second = await newSubscription();
    expect((await subscribe(TEST_API_TOKEN, second, { subject, events: ["run.waiting", "run.failed"] })).status).toBe(201);
    // The same endpoint again: its keys and events are replaced, not a second subscription.
    expect((await subscribe(user, first, { events: ["run.finished"] })).status).toBe(200);
    const listed = await listSubscriptions(user);
    expect(listed.map((view) => [view.endpoint, view.events])).toEqual([
      [first.endpoint, ["run.finished"]],
      [second.endpoint, ["run.waiting", "run.failed"]],
    ]);
    expect(await listSubscriptions(TEST_API_TOKEN, subject)).toEqual(listed);
    const removed = await api(`/v1/push/subscriptions?endpoint=${encodeURIComponent(first.endpoint)}`, user, { method: "DELETE" });
    expect(removed.status).toBe(204);
    await expectError(await api(`/v1/push/subscriptions?endpoint=${encodeURIComponent(first.endpoint)}`, user, { method: "DELETE" }), 404, "not-found");
    expect((await listSubscriptions(user)).map((view) => view.endpoint)).toEqual([second.endpoint]);
    // Another subject's user token sees none of them.
    expect(await listSubscriptions(await userToken(freshSubject()))).toEqual([]);
  });

  it("refuses an endpoint off PUSH_HOSTS, bad keys, unknown events and fields (400), another subject (403), and the 11th subscription (409)", async () => {
    const subject = freshSubject();
    const user = await userToken(subject);
    const good = await newSubscription();
    const bad = [
      [{ ...good, endpoint: "https://push.evil.example/abc" }, "endpoint"],
      [{ ...good, endpoint: "http://localhost:9/push" }, "endpoint"],
      [{ ...good, keys: { ...good.keys, p256dh: "AAAA" } }, "keys.p256dh"],
      [{ ...good, keys: { ...good.keys, auth: "not base64!" } }, "keys.auth"],
    ] as const;
    for (const [subscription, path] of bad) {
      const body = await expectError(await subscribe(user, subscription), 400, "invalid-request");
      expect(body.error.issues?.map((issue) => issue.path)).toContain(path);
    }
    const unknownEvent = await api("/v1/push/subscriptions", user, { method: "POST", body: JSON.stringify({ ...good, events: ["run.cancelled"] }) });
    await expectError(unknownEvent, 400, "invalid-request");
    const unknownField = await api("/v1/push/subscriptions", user, { method: "POST", body: JSON.stringify({ ...good, id: "x" }) });
    expect((await expectError(unknownField, 400, "invalid-request")).error.issues).toEqual([{ path: "id", message: "Unknown field." }]);
    // What a browser's PushSubscription.toJSON() gives is taken as it is.
    const asJson = await api("/v1/push/subscriptions", user, { method: "POST", body: JSON.stringify({ endpoint: good.endpoint, expirationTime: null, keys: good.keys }) });
    expect(asJson.status).toBe(201);
    await expectError(await subscribe(user, good, { subject: "someone-else" }), 403, "forbidden");
    await expectError(await api("/v1/push/subscriptions", TEST_API_TOKEN, { method: "POST", body: JSON.stringify(good) }), 400, "invalid-request");
    for (let i = 1; i < PUSH_SUBSCRIPTIONS_LIMIT; i++) expect((await subscribe(user, await newSubscription())).status).toBe(201);
    const past = await expectError(await subscribe(user, await newSubscription()), 409, "conflict");
    expect(past.error.message).toContain(`At most ${PUSH_SUBSCRIPTIONS_LIMIT}`);
    // Renewing one that is there is still taken.
    expect((await subscribe(user, good)).status).toBe(200);
  });
});

describe("pushes", () => {
  it("a run that starts waiting rings each subscription: a verified VAPID JWT, aes128gcm that http_ece decrypts to {runId, kind, question, url}, TTL, urgency high, a topic", async () => {
    const subject = freshSubject();
    const user = await userToken(subject);
    const phone = await newSubscription();
    const laptop = await newSubscription();
    await subscribe(user, phone);
    await subscribe(user, laptop);
    const runId = await waitingRun(subject, "Which day suits you?");
    for (const subscription of [phone, laptop]) {
      const pushes = await pushesTo(subscription.id);
      expect(pushes).toHaveLength(1);
      const [push] = pushes;
      expect(push!.problems).toEqual([]);
      expect(push).toMatchObject({ verified: true, urgency: "high", ttl: "86400", answered: 201 });
      expect(push!.topic).toMatch(/^[\w-]{32}$/);
      expect(push!.jwt).toMatchObject({ aud: inject("pushServiceUrl"), sub: "mailto:push-tests@ratchet.test" });
      expect(push!.payload).toEqual({ runId, kind: "run.waiting", question: "Which day suits you?", url: `https://ratchet.test/console/#${runId}` });
    }
    // Sent: nothing is left to send, and the subscription shows the answer.
    expect(await pendingPushRows(subject)).toEqual([]);
    expect((await listSubscriptions(user))[0]).toMatchObject({ lastStatus: 201 });
    // Answered and finished: a subscription that asked only for waiting hears nothing more.
    await answer(runId);
    await settle(runId);
    await pushIdle(subject);
    expect(await pushesTo(phone.id)).toHaveLength(1);
  });

  it("finished and failed runs ring the subscriptions that asked for them; other subjects' subscriptions hear nothing", async () => {
    const subject = freshSubject();
    const all = await newSubscription();
    const quiet = await newSubscription();
    await subscribe(TEST_API_TOKEN, all, { subject, events: ["run.waiting", "run.finished", "run.failed"] });
    await subscribe(TEST_API_TOKEN, quiet, { subject: freshSubject() });
    const runId = await waitingRun(subject);
    await answer(runId);
    await settle(runId);
    await pushIdle(subject);
    const { run: failing } = await startRun({ subject, messages: hi, metadata: { title: "Nightly report" }, script: [{ error: "the model broke" }] });
    await settle(failing.id);
    await pushIdle(subject);
    const pushes = await waitForPushes(all.id, 3);
    expect(pushes.every((push) => push.verified)).toBe(true);
    expect(pushes.map((push) => [push.payload!.runId, push.payload!.kind, push.payload!.question])).toEqual([
      [runId, "run.waiting", "Ship it?"],
      [runId, "run.finished", "The run finished."],
      [failing.id, "run.failed", "The run failed."],
    ]);
    expect(pushes[2]!.payload!.title).toBe("Nightly report");
    expect(await pushesTo(quiet.id)).toEqual([]);
  });

  it("a long question is cut so the payload stays within 3 KB", async () => {
    const subject = freshSubject();
    const subscription = await newSubscription();
    await subscribe(TEST_API_TOKEN, subscription, { subject });
    await waitingRun(subject, "é".repeat(5000));
    const [push] = await pushesTo(subscription.id);
    expect(push!.verified).toBe(true);
    const question = String(push!.payload!.question);
    expect(question.endsWith("…")).toBe(true);
    expect(question.length).toBeGreaterThan(1000);
    expect(new TextEncoder().encode(JSON.stringify(push!.payload)).length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  });

  it("a failed push is retried with backoff until the push service takes it (Retry-After honoured), at least once", async () => {
    const subject = freshSubject();
    const subscription = await newSubscription({ answers: [500, 429], retryAfter: 120 });
    await subscribe(TEST_API_TOKEN, subscription, { subject });
    const before = Date.now();
    await waitingRun(subject);
    let [row] = await pendingPushRows(subject);
    expect(row).toMatchObject({ attempts: 1, kind: "run.waiting" });
    // The first retry waits 5 s (± 25 %); the inbox's alarm is set for it.
    expect(row!.nextAt - before).toBeGreaterThanOrEqual(3_750);
    expect(row!.nextAt - Date.now()).toBeLessThanOrEqual(6_250);
    expect(await runInDurableObject(inboxObject(subject), (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    await retryPushesNow(subject);
    [row] = await pendingPushRows(subject);
    // 429 with Retry-After: 120 s, longer than the backoff's 15 s.
    expect(row).toMatchObject({ attempts: 2 });
    expect(row!.nextAt - Date.now()).toBeGreaterThan(100_000);
    await retryPushesNow(subject);
    expect(await pendingPushRows(subject)).toEqual([]);
    const pushes = await pushesTo(subscription.id);
    expect(pushes.map((push) => [push.answered, push.verified])).toEqual([
      [500, true],
      [429, true],
      [201, true],
    ]);
    // Every attempt carries the same payload.
    expect(new Set(pushes.map((push) => JSON.stringify(push.payload))).size).toBe(1);
  });

  it.each([410, 404])("a %s removes the subscription and its pushes; the others still ring", async (status) => {
    const subject = freshSubject();
    const gone = await newSubscription({ answers: [status] });
    const kept = await newSubscription();
    await subscribe(TEST_API_TOKEN, gone, { subject });
    await subscribe(TEST_API_TOKEN, kept, { subject });
    await waitingRun(subject);
    expect((await listSubscriptions(TEST_API_TOKEN, subject)).map((view) => view.endpoint)).toEqual([kept.endpoint]);
    expect(await pendingPushRows(subject)).toEqual([]);
    await waitingRun(subject);
    expect(await pushesTo(gone.id)).toHaveLength(1);
    expect(await pushesTo(kept.id)).toHaveLength(2);
  });

  it("a push refused for good (400) is dropped and shown on the subscription; a waiting push whose run moved on is not sent", async () => {
    const subject = freshSubject();
    const refusing = await newSubscription({ answers: [400] });
    await subscribe(TEST_API_TOKEN, refusing, { subject });
    await waitingRun(subject);
    expect(await pendingPushRows(subject)).toEqual([]);
    expect((await listSubscriptions(TEST_API_TOKEN, subject))[0]).toMatchObject({ lastStatus: 400, lastError: "The push service answered 400." });

    const late = freshSubject();
    const flaky = await newSubscription({ answers: [503] });
    await subscribe(TEST_API_TOKEN, flaky, { subject: late });
    const runId = await waitingRun(late);
    expect(await pendingPushRows(late)).toHaveLength(1);
    // Answered before the retry: the question is no longer asked, so it is not rung again.
    await answer(runId);
    await settle(runId);
    await retryPushesNow(late);
    expect(await pendingPushRows(late)).toEqual([]);
    expect(await pushesTo(flaky.id)).toHaveLength(1);
  });
});

describe("push off", () => {
  it("the inbox of a subject without subscriptions writes no push and sets no alarm for one", async () => {
    const subject = freshSubject();
    await waitingRun(subject);
    expect(await pendingPushRows(subject)).toEqual([]);
    expect(await runInDurableObject(inboxObject(subject), (_instance, state) => state.storage.getAlarm())).toBeNull();
    expect(env.VAPID_SUBJECT).toBe("mailto:push-tests@ratchet.test");
  });
});
