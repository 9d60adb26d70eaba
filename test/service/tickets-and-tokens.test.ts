// No token in a URL: a browser opens the events stream with a one-time ticket. A run token can be
// replaced by the deployment token; the old one, its tickets and its open streams stop at once.
import { runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { stubFor } from "../helpers/runs";
import { expectError } from "../helpers/http";
import { api, BASE, DEPLOY, driveRun, openSocket, openSocketAt, readSse, startRun, ticketFor } from "../helpers/service-client";

const script = [{ text: "Hello." }];

describe("tickets", () => {
  it("a ticket opens the stream once, from either token, without any header", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script });
    await driveRun(run.id);
    for (const who of [token, DEPLOY.Authorization.slice("Bearer ".length)]) {
      const ticket = await ticketFor(run.id, who);
      expect(ticket).toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
      const socket = await openSocketAt(`/v1/runs/${run.id}/events?ticket=${ticket}`);
      await socket.next((frame) => frame.type === "end");
      socket.close();
      await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${ticket}`, { headers: { Upgrade: "websocket" } }), 401, "unauthorized");
    }
    const sse = await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${await ticketFor(run.id, token)}`, { headers: { Accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    expect((await readSse(sse, (data) => data.type === "end")).at(-1)!.data).toMatchObject({ type: "end", status: "finished" });
  });

  it("answers with an expiry a minute away", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script });
    const before = Date.now();
    const response = await api(`/v1/runs/${run.id}/tickets`, token, { method: "POST" });
    const { expiresAt } = (await response.json()) as { expiresAt: string };
    expect(Date.parse(expiresAt) - before).toBeGreaterThanOrEqual(59_000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(61_000);
  });

  it("an expired ticket is refused", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script });
    const ticket = await ticketFor(run.id, token);
    await runInDurableObject(stubFor(run.id), (_instance, state) => void state.storage.sql.exec("UPDATE ticket SET expires_at = ?", Date.now() - 1));
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${ticket}`, { headers: { Accept: "text/event-stream" } }), 401, "unauthorized");
  });

  it("a ticket is good for its own run only", async () => {
    const a = await startRun({ messages: [{ role: "user", content: "a" }], script });
    const b = await startRun({ messages: [{ role: "user", content: "b" }], script });
    const ticket = await ticketFor(a.run.id, a.token);
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${b.run.id}/events?ticket=${ticket}`, { headers: { Upgrade: "websocket" } }), 401, "unauthorized");
  });

  it("the run object keeps only the ticket's hash", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script });
    const ticket = await ticketFor(run.id, token);
    const stored = await runInDurableObject(stubFor(run.id), (_instance, state) => state.storage.sql.exec("SELECT * FROM ticket").toArray());
    expect(JSON.stringify(stored)).not.toContain(ticket);
    expect(stored).toHaveLength(1);
  });
});

describe("rotating a run token", () => {
  it("the old token, its tickets and its open streams stop at once; the new one works; the deployment's streams stay", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }, { text: "ok" }] });
    await driveRun(run.id);
    const byRunToken = await openSocket(run.id, token);
    const byTicket = await openSocketAt(`/v1/runs/${run.id}/events?ticket=${await ticketFor(run.id, token)}`);
    const byDeployment = await openSocket(run.id, DEPLOY.Authorization.slice("Bearer ".length));
    const unused = await ticketFor(run.id, token);

    const rotated = await api(`/v1/runs/${run.id}/token`, DEPLOY.Authorization.slice("Bearer ".length), { method: "POST" });
    expect(rotated.status).toBe(200);
    const { token: fresh } = (await rotated.json()) as { token: string };
    expect(fresh).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(token);

    expect(await byRunToken.closed).toBe(4001);
    expect(await byTicket.closed).toBe(4001);
    await expectError(await api(`/v1/runs/${run.id}`, token), 404, "not-found");
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}/events?ticket=${unused}`, { headers: { Upgrade: "websocket" } }), 401, "unauthorized");
    expect((await api(`/v1/runs/${run.id}`, fresh)).status).toBe(200);

    // The deployment's socket still sees the run go on.
    expect((await api(`/v1/runs/${run.id}/answer`, fresh, { method: "POST", body: JSON.stringify({ callId: "q", content: "yes" }) })).status).toBe(202);
    await driveRun(run.id);
    await byDeployment.next((frame) => frame.type === "end");
  });

  it("only the deployment token may rotate it", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script });
    await expectError(await api(`/v1/runs/${run.id}/token`, token, { method: "POST" }), 403, "forbidden");
    expect((await api(`/v1/runs/${run.id}`, token)).status).toBe(200);
  });

  it("an Idempotency-Key retried after a rotation is refused (the token it would hand back is void)", async () => {
    const key = { "Idempotency-Key": `rotated-${crypto.randomUUID()}` };
    const first = await startRun({ messages: [{ role: "user", content: "hi" }], script }, key);
    await api(`/v1/runs/${first.run.id}/token`, DEPLOY.Authorization.slice("Bearer ".length), { method: "POST" });
    const again = await SELF.fetch(`${BASE}/v1/runs`, {
      method: "POST",
      headers: { ...DEPLOY, "Content-Type": "application/json", ...key },
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }], script }),
    });
    const { error } = await expectError(again, 409, "conflict");
    expect(error.message).toContain("new token");
  });
});
