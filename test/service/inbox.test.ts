// Answering from a phone that was not watching: a user token for one subject creates runs, lists
// them (newest first, cursor pages, a status filter), hears about their changes on one inbox
// stream (WebSocket or SSE, resumable with after=), and reads, answers, cancels and continues its
// own runs; another subject's runs are 404 and the deployment-only routes are 403.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { stubFor } from "../helpers/runs";
import { createWith, freshSubject, inboxEvents, listAll, listPage, openInbox, settle, userToken, BASE } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { mintUserToken } from "../../src/http/auth/user-tokens";
import { TEST_API_TOKEN, TEST_RUN_ID_KEY } from "../test-env";
import { readSse } from "../helpers/service-client";
import { uniqueModel } from "../fake-anthropic/client";

const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}` };
const asking = (question: string) => ({ tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question } }] }, { text: "Thanks." }] });

function call(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers } });
}

describe("user tokens", () => {
  it("create runs stamped with their subject, and read, answer, cancel and continue them", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    expect(token).toMatch(/^ut_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const { run } = await createWith(token, asking("Which colour?"));
    expect(run.subject).toBe(subject);
    await settle(run.id);
    const waiting = (await (await call(`/v1/runs/${run.id}`, token)).json()) as RunView;
    expect(waiting).toMatchObject({ status: "waiting", subject, waiting: { callId: "q" } });
    expect((await call(`/v1/runs/${run.id}/messages`, token)).status).toBe(200);
    expect((await call(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "Blue" }) })).status).toBe(202);
    await settle(run.id);
    expect(((await (await call(`/v1/runs/${run.id}`, token)).json()) as RunView).status).toBe("finished");
    const continued = await call(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "And green?" }) });
    expect(continued.status).toBe(202);
    expect((await call(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    expect(((await (await call(`/v1/runs/${run.id}`, token)).json()) as RunView).status).toBe("cancelled");
  });

  it("another subject's run is 404, like an unknown id; deleting, rotating and minting are 403", async () => {
    const mine = await userToken(freshSubject("mine"));
    const theirs = await userToken(freshSubject("theirs"));
    const { run } = await createWith(theirs, asking("?"));
    for (const [method, path] of [["GET", ""], ["GET", "/messages"], ["POST", "/cancel"], ["POST", "/tickets"], ["POST", "/retry"]] as const) {
      await expectError(await call(`/v1/runs/${run.id}${path}`, mine, { method }), 404, "not-found");
    }
    // A run made by the deployment token without a subject is no user's.
    const { run: unowned } = await createWith(TEST_API_TOKEN, {});
    await expectError(await call(`/v1/runs/${unowned.id}`, mine), 404, "not-found");
    await expectError(await call(`/v1/runs/${run.id}`, theirs, { method: "DELETE" }), 403, "forbidden");
    await expectError(await call(`/v1/runs/${run.id}/token`, theirs, { method: "POST" }), 403, "forbidden");
    await expectError(await call("/v1/tokens", theirs, { method: "POST", body: JSON.stringify({ subject: "x" }) }), 403, "forbidden");
    expect((await call(`/v1/runs/${run.id}`, theirs)).status).toBe(200);
  });

  it("an expired or forged user token is 401", async () => {
    const token = await userToken(freshSubject());
    const [payload, mac] = token.slice(3).split(".") as [string, string];
    const forged = `ut_${payload}.${mac.slice(0, -2)}${mac.endsWith("AA") ? "AB" : "AA"}`;
    await expectError(await call("/v1/runs", forged), 401, "unauthorized");
    // Signed like the deployment's own, a second past its expiry (expiry against a moving clock: test/http/user-tokens.test.ts).
    const expired = await mintUserToken(TEST_RUN_ID_KEY, freshSubject(), Date.now() - 1000);
    const { error } = await expectError(await call("/v1/runs", expired), 401, "unauthorized");
    expect(error.message).toContain("expired");
  });

  it("runs a user token creates carry its subject; it cannot name another, use HTTP tools or a webhook of its own", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const refused = await call("/v1/runs", token, {
      method: "POST",
      body: JSON.stringify({
        provider: "scripted",
        messages: [{ role: "user", content: "hi" }],
        subject: "someone-else",
        tools: [{ type: "http", name: "h", description: "d", inputSchema: {}, url: "http://127.0.0.1:9/h" }],
        webhook: { url: "http://127.0.0.1:9/hook" },
      }),
    });
    const { error } = await expectError(refused, 400, "invalid-request");
    expect(error.issues?.map((issue) => issue.path).sort()).toEqual(["subject", "tools.0", "webhook"]);
    // Its own subject may be named; the deployment token may create a run for any subject.
    expect((await createWith(token, { subject })).run.subject).toBe(subject);
    expect((await createWith(TEST_API_TOKEN, { subject })).run.subject).toBe(subject);
  });

  it("a user token cannot use the scripted provider (403 naming SCRIPTED_PROVIDER), asked for or by default", async () => {
    const token = await userToken(freshSubject());
    for (const body of [{ provider: "scripted" }, { script: [{ text: "I say what you wrote." }] }]) {
      const response = await SELF.fetch(`${BASE}/v1/runs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
      });
      expect((await expectError(response, 403, "forbidden")).error.message).toContain("SCRIPTED_PROVIDER");
    }
  });

  it("an Idempotency-Key is the subject's own: two subjects' same key make two runs", async () => {
    const a = await userToken(freshSubject("a"));
    const b = await userToken(freshSubject("b"));
    const key = { "Idempotency-Key": `same-${crypto.randomUUID()}` };
    // One body for every try: a retry must send the same request.
    const body = { provider: "anthropic", model: uniqueModel("claude-sonnet-5-5") };
    const first = await createWith(a, body, key);
    expect((await createWith(a, body, key)).run.id).toBe(first.run.id);
    const other = await createWith(b, body, key);
    expect(other.run.id).not.toBe(first.run.id);
    const deployment = await createWith(TEST_API_TOKEN, {}, key);
    expect(new Set([first.run.id, other.run.id, deployment.run.id]).size).toBe(3);
  });

  it("idempotency scopes cannot collide across subjects: alice:x with key y is not alice with key x:y", async () => {
    const base = `scope-${crypto.randomUUID()}`;
    const body = { provider: "anthropic", model: uniqueModel("claude-sonnet-5-5") };
    const joined = await createWith(await userToken(`${base}:x`), body, { "Idempotency-Key": "y" });
    const split = await createWith(await userToken(base), body, { "Idempotency-Key": "x:y" });
    expect(split.run.id).not.toBe(joined.run.id);
    expect(split.run.subject).toBe(base);
    expect(joined.run.subject).toBe(`${base}:x`);
  });
});

describe("GET /v1/runs", () => {
  it("lists the subject's runs newest first, 50 a page by default, with a status filter and stable cursors", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { run } = await createWith(TEST_API_TOKEN, { subject, metadata: { n: i }, ...(i % 3 === 0 ? asking(`Question ${i}?`) : { script: [{ text: "done" }] }) });
      ids.push(run.id);
      await settle(run.id);
    }
    const all = await listAll(token);
    expect(all.map((run) => run.id)).toEqual([...ids].reverse());
    expect(all[0]).toMatchObject({ subject, metadata: { n: 6 }, status: "waiting", waiting: { kind: "ask", callId: "q", name: "ask", input: { question: "Question 6?" } } });
    const waiting = await listAll(token, "status=waiting");
    expect(waiting.map((run) => run.metadata?.n)).toEqual([6, 3, 0]);

    // Pages of 3; a run created after the first page is read does not shift the later ones.
    const first = await listPage(token, "limit=3");
    expect(first.runs.map((run) => run.id)).toEqual(ids.slice(4).reverse());
    const late = await createWith(token, { script: [{ text: "late" }] });
    await settle(late.run.id);
    const second = await listPage(token, `limit=3&cursor=${first.nextCursor!}`);
    expect(second.runs.map((run) => run.id)).toEqual(ids.slice(1, 4).reverse());
    const third = await listPage(token, `limit=3&cursor=${second.nextCursor!}`);
    expect(third.runs.map((run) => run.id)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeUndefined();
    expect((await listPage(token, "limit=1")).runs[0]!.id).toBe(late.run.id);
  });

  it("the deployment token names the subject; a user token may name only its own", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const { run } = await createWith(token, {});
    await settle(run.id);
    expect((await listPage(TEST_API_TOKEN, `subject=${encodeURIComponent(subject)}`)).runs.map((r) => r.id)).toEqual([run.id]);
    expect((await listPage(token, `subject=${encodeURIComponent(subject)}`)).runs.map((r) => r.id)).toEqual([run.id]);
    await expectError(await call("/v1/runs?subject=someone-else", token), 403, "forbidden");
    const { error } = await expectError(await call("/v1/runs", TEST_API_TOKEN), 400, "invalid-request");
    expect(error.issues?.[0]?.path).toBe("subject");
    // An unknown subject has an empty inbox.
    expect((await listPage(TEST_API_TOKEN, `subject=nobody-${crypto.randomUUID()}`)).runs).toEqual([]);
  });

  it("the listing shows each run as its own view does", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const { run } = await createWith(token, { metadata: { chat: "c1" }, ...asking("Which?") });
    await settle(run.id);
    const [listed] = (await listPage(token)).runs;
    const view = (await (await call(`/v1/runs/${run.id}`, token)).json()) as RunView;
    expect(listed).toEqual({
      id: view.id,
      status: "waiting",
      stoppedBy: "asked",
      steps: view.steps,
      spentUsd: view.spentUsd,
      createdAt: view.createdAt,
      updatedAt: view.updatedAt,
      metadata: { chat: "c1" },
      waiting: view.waiting,
      subject,
      version: 2,
    });
  });

  it("a deleted run leaves the listing", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const { run } = await createWith(token, {});
    await settle(run.id);
    expect((await listPage(token)).runs).toHaveLength(1);
    expect((await call(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" })).status).toBe(204);
    await settle(run.id);
    expect((await listPage(token)).runs).toEqual([]);
  });
});

describe("GET /v1/inbox/events", () => {
  it("streams every change of the subject's runs over one socket, in order, gap-free, and resumes with after=", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const socket = await openInbox("/v1/inbox/events", { Authorization: `Bearer ${token}` });
    const a = await createWith(token, asking("First?"));
    const b = await createWith(token, { script: [{ text: "quick" }] });
    await settle(a.run.id);
    await settle(b.run.id);
    await socket.next((frame) => frame.type === "run-waiting");
    await socket.next((frame) => frame.type === "run-ended");
    expect((await call(`/v1/runs/${a.run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "Yes" }) })).status).toBe(202);
    await settle(a.run.id);
    await socket.next((frame) => frame.type === "run-ended" && (frame.run as { id: string }).id === a.run.id);
    const events = inboxEvents(socket.frames);
    expect(events.map((event) => event.seq)).toEqual(events.map((_e, i) => i + 1));
    const ofA = events.filter((event) => event.run.id === a.run.id).map((event) => event.type);
    expect(ofA).toEqual(["run-started", "run-waiting", "run-answered", "run-ended"]);
    expect(events.find((event) => event.type === "run-answered")).toMatchObject({ callId: "q", run: { status: "running" } });
    expect(events.filter((event) => event.run.id === b.run.id).map((event) => event.type)).toEqual(["run-started", "run-ended"]);
    socket.send({ type: "ping" });
    await socket.next((frame) => frame.type === "pong");
    socket.send({ type: "answer", callId: "q" });
    await socket.next((frame) => frame.type === "error");
    socket.close();

    // A reconnect with after= gets exactly what came after.
    const again = await openInbox(`/v1/inbox/events?after=4`, { Authorization: `Bearer ${token}` });
    const last = events.at(-1)!;
    await again.next((frame) => frame.seq === last.seq);
    expect(inboxEvents(again.frames).map((event) => event.seq)).toEqual(events.slice(4).map((event) => event.seq));
    again.close();
  });

  it("SSE with Last-Event-ID, a one-time ticket from POST /v1/inbox/tickets, and the deployment token with subject=", async () => {
    const subject = freshSubject();
    const token = await userToken(subject);
    const { run } = await createWith(token, asking("?"));
    await settle(run.id);
    const sse = await SELF.fetch(`${BASE}/v1/inbox/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream", "Last-Event-ID": "1" } });
    expect(sse.status).toBe(200);
    const read = await readSse(sse, (data) => data.type === "run-waiting");
    expect(read.map((event) => event.id)).toEqual(["2"]);

    const ticketAnswer = await call("/v1/inbox/tickets", token, { method: "POST" });
    expect(ticketAnswer.status).toBe(201);
    const { ticket } = (await ticketAnswer.json()) as { ticket: string };
    expect(ticket).toMatch(/^it_[0-9a-f]{64}\.[A-Za-z0-9_-]{43}$/);
    expect(ticket).not.toContain(subject);
    const byTicket = await openInbox(`/v1/inbox/events?ticket=${ticket}`);
    await byTicket.next((frame) => frame.type === "run-waiting");
    byTicket.close();
    await expectError(await SELF.fetch(`${BASE}/v1/inbox/events?ticket=${ticket}`, { headers: { Upgrade: "websocket" } }), 401, "unauthorized");

    const deployment = await openInbox(`/v1/inbox/events?subject=${encodeURIComponent(subject)}`, DEPLOY);
    await deployment.next((frame) => frame.type === "run-waiting");
    deployment.close();
    await expectError(await SELF.fetch(`${BASE}/v1/inbox/events`, { headers: { Upgrade: "websocket", ...DEPLOY } }), 400, "invalid-request");
  });

  it("a ticket of one subject's inbox opens no other inbox, and a run token opens none", async () => {
    const token = await userToken(freshSubject());
    const { run, token: runToken } = await createWith(token, {});
    await settle(run.id);
    await expectError(await call("/v1/inbox/tickets", runToken, { method: "POST" }), 403, "forbidden");
    await expectError(await SELF.fetch(`${BASE}/v1/inbox/events?ticket=it_${"0".repeat(64)}.${"a".repeat(43)}`, { headers: { Upgrade: "websocket" } }), 401, "unauthorized");
    // A run token still reads its own run, and the run stays the subject's.
    expect((await call(`/v1/runs/${run.id}`, runToken)).status).toBe(200);
    expect(await stubFor(run.id).authorizeSubject("someone")).toBe(false);
  });
});
