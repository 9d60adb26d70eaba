// A run's own webhook (`webhook: { url }`): run.waiting and the end, signed per Standard Webhooks
// and verified at a receiver in Node with the specification's reference package (standardwebhooks);
// one webhook-id across retries; a 2xx ends it; retried with backoff until the last attempt, then
// failed; the run's view shows every delivery; a slow receiver never holds up the run.
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RunView, WebhookPayload } from "../../src/api/types";
import type { RunObject } from "../../src/durable/run/run-object";
import { createApp } from "../../src/http/app";
import { deliverOutbox, outboxIdle, settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { bearer, expectError } from "../helpers/http";
import { api, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

type Received = { id: string; timestamp: string; verified: boolean; error?: string; body: WebhookPayload; arrivedAt: number; answered: number };

const receiver = () => inject("webhookReceiverUrl");
const hi = [{ role: "user", content: "hi" }];
const asking = { messages: hi, tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Ship it?" } }] }, { text: "Shipped." }] };

async function received(name: string): Promise<Received[]> {
  return (await (await fetch(`${receiver()}/hooks/${name}`)).json()) as Received[];
}

function hookName(): string {
  return `run-${crypto.randomUUID().slice(0, 8)}`;
}

async function view(id: string): Promise<RunView> {
  return (await (await api(`/v1/runs/${id}`, TEST_API_TOKEN)).json()) as RunView;
}

/** Makes every pending row of the run due now (its retry time reached), as the clock would. */
async function makeDue(id: string): Promise<void> {
  await runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
    state.storage.sql.exec("UPDATE outbox SET next_at = ? WHERE state = 'pending'", Date.now() - 1);
  });
}

describe("a run's own webhook", () => {
  it("run.waiting and run.finished reach the receiver, signed (verified with standardwebhooks), and the view shows them delivered", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, subject: "webhook-user", metadata: { order: 7 }, webhook: { url: `${receiver()}/hooks/${name}` } });
    await settle(run.id);
    let hooks = await received(name);
    expect(hooks).toHaveLength(1);
    const [waiting] = hooks;
    expect(waiting).toMatchObject({ verified: true, id: `${run.id}/change/2`, answered: 204 });
    expect(waiting!.body).toMatchObject({ type: "run.waiting", data: { run: { id: run.id, status: "waiting", subject: "webhook-user", metadata: { order: 7 }, waiting: { callId: "q", input: { question: "Ship it?" } } } } });
    expect(Math.abs(Number(waiting!.timestamp) * 1000 - waiting!.arrivedAt)).toBeLessThan(5_000);
    expect((await view(run.id)).webhooks).toEqual([{ id: `${run.id}/change/2`, type: "run.waiting", target: "run", state: "delivered", attempts: 1, lastStatus: 204 }]);

    await api(`/v1/runs/${run.id}/answer`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ callId: "q", content: "Yes" }) });
    await settle(run.id);
    hooks = await received(name);
    expect(hooks.map((hook) => [hook.body.type, hook.verified])).toEqual([
      ["run.waiting", true],
      ["run.finished", true],
    ]);
    expect(hooks[1]!.body.data.run).toMatchObject({ status: "finished", stoppedBy: "done", version: 4 });
    expect((await view(run.id)).webhooks!.map((hook) => [hook.type, hook.state])).toEqual([
      ["run.finished", "delivered"],
      ["run.waiting", "delivered"],
    ]);
  });

  it("run.failed carries the error; run.cancelled is sent for a cancel", async () => {
    const name = hookName();
    const failing = await startRun({ messages: hi, script: [{ error: "the model broke" }], webhook: { url: `${receiver()}/hooks/${name}` } });
    await settle(failing.run.id);
    const cancelled = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}` } });
    await settle(cancelled.run.id);
    await api(`/v1/runs/${cancelled.run.id}/cancel`, TEST_API_TOKEN, { method: "POST" });
    await settle(cancelled.run.id);
    const hooks = await received(name);
    expect(hooks.every((hook) => hook.verified)).toBe(true);
    expect(hooks.map((hook) => hook.body.type).sort()).toEqual(["run.cancelled", "run.failed", "run.waiting"]);
    expect(hooks.find((hook) => hook.body.type === "run.failed")!.body.data.error).toMatchObject({ message: expect.stringContaining("the model broke") });
  });

  it("a receiver that fails is tried again with the same webhook-id until a 2xx; the view shows the attempts", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}?fail=2` } });
    await settle(run.id);
    let [delivery] = (await view(run.id)).webhooks!;
    expect(delivery).toMatchObject({ state: "pending", attempts: 1, lastStatus: 500, lastError: "The receiver answered 500." });
    // The first retry waits 10 s (± 25 %).
    const wait = Date.parse(delivery!.nextAttemptAt!) - Date.now();
    expect(wait).toBeGreaterThan(6_000);
    expect(wait).toBeLessThanOrEqual(12_500);
    // An alarm before the retry is due sends nothing.
    await deliverOutbox(stubFor(run.id));
    expect(await received(name)).toHaveLength(1);
    for (const attempt of [2, 3]) {
      await makeDue(run.id);
      await deliverOutbox(stubFor(run.id));
      [delivery] = (await view(run.id)).webhooks!;
      expect(delivery!.attempts).toBe(attempt);
    }
    expect(delivery).toMatchObject({ state: "delivered", attempts: 3, lastStatus: 204 });
    expect(delivery!.lastError).toBeUndefined();
    const hooks = await received(name);
    expect(hooks.map((hook) => [hook.id, hook.verified, hook.answered])).toEqual([
      [`${run.id}/change/2`, true, 500],
      [`${run.id}/change/2`, true, 500],
      [`${run.id}/change/2`, true, 204],
    ]);
  });

  it("after the last attempt the delivery is failed, with the last status shown on the run", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}?status=503` } });
    await settle(run.id);
    // Eight attempts made, the ninth due: it is the last.
    await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET attempts = 8, next_at = ? WHERE channel = 'webhook'", Date.now() - 1);
    });
    await deliverOutbox(stubFor(run.id));
    const [delivery] = (await view(run.id)).webhooks!;
    expect(delivery).toMatchObject({ state: "failed", attempts: 9, lastStatus: 503 });
    expect(delivery!.nextAttemptAt).toBeUndefined();
    // The run is unaffected: it still waits for its answer, and no alarm is left for the webhook.
    expect((await view(run.id)).status).toBe("waiting");
    const { alarm, deleteAt } = await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      deleteAt: Number(state.storage.sql.exec<{ at: number }>("SELECT delete_at AS at FROM run").one().at),
    }));
    expect(alarm).toBe(deleteAt);
  });

  it("a delivery past 24 hours after the first attempt is failed without another attempt", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}?status=500` } });
    await settle(run.id);
    await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET created_at = ?, next_at = ? WHERE channel = 'webhook'", Date.now() - 25 * 3600_000, Date.now() - 1);
    });
    await deliverOutbox(stubFor(run.id));
    expect((await view(run.id)).webhooks![0]).toMatchObject({ state: "failed", attempts: 1, lastStatus: 500 });
    expect(await received(name)).toHaveLength(1);
  });

  it("a slow receiver never holds up the run: the alarm and the answer return while the webhook is in flight", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}?hold=1` } });
    const stub = stubFor(run.id);
    await runDurableObjectAlarm(stub);
    const answered = await api(`/v1/runs/${run.id}/answer`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ callId: "q", content: "Yes" }) });
    expect(answered.status).toBe(202);
    await runDurableObjectAlarm(stub);
    expect((await view(run.id)).status).toBe("finished");
    // The run finished while the receiver still held run.waiting unanswered.
    expect((await received(name))[0]).toMatchObject({ body: { type: "run.waiting" }, held: true });
    await fetch(`${receiver()}/hooks/${name}/release`, { method: "POST" });
    await outboxIdle(stub);
    await deliverOutbox(stub);
    expect((await received(name)).map((hook) => hook.body.type)).toEqual(["run.waiting", "run.finished"]);
  });

  it("a deleted run's pending webhook is still delivered; then only the tombstone is left", async () => {
    const name = hookName();
    const { run } = await startRun({ ...asking, webhook: { url: `${receiver()}/hooks/${name}?fail=1` } });
    await settle(run.id);
    expect((await view(run.id)).webhooks![0]).toMatchObject({ state: "pending", attempts: 1 });
    expect((await api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" })).status).toBe(204);
    const tombstone = () =>
      runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, async (_instance, state) => ({
        tables: state.storage.sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name")
          .toArray()
          .map((row) => row.name),
        alarm: await state.storage.getAlarm(),
      }));
    expect((await tombstone()).tables).toEqual(["deleted", "outbox"]);
    expect((await tombstone()).alarm).not.toBeNull();
    await makeDue(run.id);
    await deliverOutbox(stubFor(run.id));
    expect((await received(name)).map((hook) => [hook.body.type, hook.answered])).toEqual([
      ["run.waiting", 500],
      ["run.waiting", 204],
    ]);
    expect(await tombstone()).toEqual({ tables: ["deleted"], alarm: null });
  });

  it("is refused at creation when its host is not on HTTP_TOOL_ALLOW or the deployment has no WEBHOOK_SECRET", async () => {
    const outside = await startRunRaw({ messages: [{ role: "user", content: "hi" }], webhook: { url: "https://hooks.example.com/x" } });
    const { error } = await expectError(outside, 400, "invalid-request");
    expect(error.issues?.map((issue) => issue.path)).toEqual(["webhook.url"]);
    const plain = await startRunRaw({ messages: [{ role: "user", content: "hi" }], webhook: { url: `${receiver().replace("127.0.0.1", "localhost")}/hooks/x` } });
    expect(plain.status).toBe(201);
    const ctx = createExecutionContext();
    const noSecret = await createApp().request(
      "/v1/runs",
      { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], webhook: { url: `${receiver()}/hooks/x` } }) },
      { ...env, WEBHOOK_SECRET: "" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const refused = await expectError(noSecret, 400, "invalid-request");
    expect(refused.error.issues?.[0]).toMatchObject({ path: "webhook", message: expect.stringContaining("WEBHOOK_SECRET is not set") });
  });
});

async function startRunRaw(body: Record<string, unknown>): Promise<Response> {
  return api("/v1/runs", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ provider: "scripted", ...body }) });
}
