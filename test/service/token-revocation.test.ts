// DELETE /v1/tokens/:id: a user token revoked before its expiry is refused at once, by the backend
// (deployment token) or by the token itself; the revocation lives in the subject's inbox. The
// sockets and streams a user token opened end with it: revoked, expired, or its key rotated out.
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { KEY_CHECK_MS, nextTokenCheck } from "../../src/durable/events/readers/watcher-tokens";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import type { RunObject } from "../../src/durable/run/run-object";
import { BASE, createWith, freshSubject, settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { openSocket, openSocketAt, ticketFor } from "../helpers/service-client";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";

async function mint(subject: string): Promise<{ token: string; id: string }> {
  const response = await SELF.fetch(`${BASE}/v1/tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ subject }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; id: string };
}

const revoke = (id: string, token: string) => SELF.fetch(`${BASE}/v1/tokens/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } });
const list = (token: string) => SELF.fetch(`${BASE}/v1/runs`, { headers: { Authorization: `Bearer ${token}` } });

describe("DELETE /v1/tokens/:id", () => {
  it("the backend revokes a user token by its id: 401 at once everywhere, other tokens of the subject unharmed", async () => {
    const subject = freshSubject("revoked");
    const phone = await mint(subject);
    const other = await mint(subject);
    expect(phone.id).toMatch(/^tok_[A-Za-z0-9_-]{22}\.[0-9a-f]{64}$/);
    const { run } = await createWith(TEST_API_TOKEN, { subject });
    expect((await list(phone.token)).status).toBe(200);
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
    const { error } = await expectError(await list(phone.token), 401, "unauthorized");
    expect(error.message).toContain("revoked");
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}`, { headers: { Authorization: `Bearer ${phone.token}` } }), 401, "unauthorized");
    await expectError(await SELF.fetch(`${BASE}/v1/inbox/tickets`, { method: "POST", headers: { Authorization: `Bearer ${phone.token}` } }), 401, "unauthorized");
    expect((await list(other.token)).status).toBe(200);
    // Revoking again changes nothing.
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
  });

  it("a ticket asked for by a user token opens no stream once that token is revoked: a run's ticket and an inbox ticket", async () => {
    const subject = freshSubject("tickets");
    const phone = await mint(subject);
    const { run } = await createWith(TEST_API_TOKEN, { subject });
    const runTicket = await ticketFor(run.id, phone.token);
    const inboxAnswer = await SELF.fetch(`${BASE}/v1/inbox/tickets`, { method: "POST", headers: { Authorization: `Bearer ${phone.token}` } });
    expect(inboxAnswer.status).toBe(201);
    const { ticket: inboxTicket } = (await inboxAnswer.json()) as { ticket: string };
    // Another token's ticket of the same subject still opens its stream after the revocation.
    const other = await mint(subject);
    const otherTicket = await ticketFor(run.id, other.token);
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
    for (const path of [`/v1/runs/${run.id}/events?ticket=${runTicket}`, `/v1/inbox/events?ticket=${inboxTicket}`]) {
      const response = await SELF.fetch(`${BASE}${path}`, { headers: { Accept: "text/event-stream" } });
      // A stream that opened is closed before the assertion fails, so the failure is quick.
      if (response.status !== 401) await response.body?.cancel();
      expect(response.status, path).toBe(401);
      const { error } = await expectError(response, 401, "unauthorized");
      expect(error.message).toContain("revoked");
    }
    const open = await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${otherTicket}`, { headers: { Accept: "text/event-stream" } });
    expect(open.status).toBe(200);
    await open.body!.cancel();
  });

  it("a user token revokes itself, and no other token; a run token revokes none; an id never given is 404", async () => {
    const subject = freshSubject("self");
    const phone = await mint(subject);
    const sibling = await mint(subject);
    await expectError(await revoke(sibling.id, phone.token), 403, "forbidden");
    const { token: runToken } = await createWith(TEST_API_TOKEN, { subject });
    await expectError(await revoke(phone.id, runToken), 403, "forbidden");
    await expectError(await revoke("tok_nonsense", TEST_API_TOKEN), 404, "not-found");
    expect((await revoke(phone.id, phone.token)).status).toBe(204);
    await expectError(await list(phone.token), 401, "unauthorized");
    expect((await list(sibling.token)).status).toBe(200);
  });
});

describe("streams of a user token end with it", () => {
  const runObject = (id: string) => stubFor(id) as unknown as DurableObjectStub<RunObject>;

  it("revoking closes its sockets and streams: on its runs (4001) and on its inbox", async () => {
    const subject = freshSubject("streams");
    const phone = await mint(subject);
    const { run } = await createWith(TEST_API_TOKEN, { subject });
    const runSocket = await openSocket(run.id, phone.token);
    const inboxSocket = await openSocketAt("/v1/inbox/events", { Authorization: `Bearer ${phone.token}` });
    const ticket = await ticketFor(run.id, phone.token);
    const sse = await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${ticket}`, { headers: { Accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    // Another token's socket stays open.
    const other = await mint(subject);
    const otherSocket = await openSocket(run.id, other.token);
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
    expect(await runSocket.closed).toBe(4001);
    expect(await inboxSocket.closed).toBe(4001);
    const reader = sse.body!.getReader();
    for (;;) if ((await reader.read()).done) break;
    otherSocket.send({ type: "ping" });
    await otherSocket.next((frame) => frame.type === "pong");
    otherSocket.close();
  });

  it("a socket closes when its token expires: the run's alarm is set for the expiry and closes it (4001)", async () => {
    const subject = freshSubject("expiry");
    const phone = await mint(subject);
    const { run } = await createWith(TEST_API_TOKEN, { subject });
    await settle(run.id);
    const socket = await openSocket(run.id, phone.token);
    const expiresAt = JSON.parse(atob(phone.token.slice(3).split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).exp * 1000;
    expect(await runInDurableObject(runObject(run.id), (_instance, state) => state.storage.getAlarm())).toBe(expiresAt);
    // The expiry comes (moved to now, as the clock would).
    await runInDurableObject(runObject(run.id), (_instance, state) => {
      for (const open of state.getWebSockets()) open.serializeAttachment({ ...(open.deserializeAttachment() as object), expiresAt: Date.now() - 1 });
    });
    await runDurableObjectAlarm(stubFor(run.id));
    expect(await socket.closed).toBe(4001);
  });

  it("a socket closes once the key that signed its token is no longer accepted; its inbox looks again within a minute", async () => {
    const subject = freshSubject("rotated");
    const phone = await mint(subject);
    const socket = await openSocketAt("/v1/inbox/events", { Authorization: `Bearer ${phone.token}` });
    const inbox = inboxStub(env, subject) as unknown as DurableObjectStub<InboxObject>;
    // The token was signed under a key that a rotation has since dropped.
    await runInDurableObject(inbox, async (_instance, state) => {
      for (const open of state.getWebSockets()) open.serializeAttachment({ ...(open.deserializeAttachment() as object), key: "0000000000000000" });
      await state.storage.setAlarm(Date.now() + KEY_CHECK_MS);
    });
    await runDurableObjectAlarm(inbox);
    expect(await socket.closed).toBe(4001);
  });
});

describe("when watchers' tokens are looked at", () => {
  it("at the earliest expiry, and within a minute while one was signed by a key other than the current one", () => {
    const now = 1_000_000;
    expect(nextTokenCheck([], now, "k1")).toBeUndefined();
    expect(nextTokenCheck([{ expiresAt: now + 5_000_000, key: "k1" }, { expiresAt: now + 3_000_000, key: "k1" }], now, "k1")).toBe(now + 3_000_000);
    expect(nextTokenCheck([{ expiresAt: now + 5_000_000, key: "k1" }, { expiresAt: now + 5_000_000, key: "k0" }], now, "k1")).toBe(now + KEY_CHECK_MS);
    expect(nextTokenCheck([{ expiresAt: now + 10, key: "k0" }], now, "k1")).toBe(now + 10);
  });
});
