// Child runs and people (docs/children.md, "Control and people"): a child's question reaches its
// parent's subject's inbox and the parent's webhook like any run's, and the parent's run token
// answers the child's question and watches the child's events (SSE, and a socket by ticket).
import { SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RunView, WebhookPayload } from "../../src/api/types";
import { agentTool, callAgents, driveTree } from "../helpers/children";
import { expectError } from "../helpers/http";
import { freshSubject, inboxEvents, listAll, openInbox, settle, userToken } from "../helpers/inbox";
import { drive, stubFor, viewOf } from "../helpers/runs";
import { api, BASE, getRun, openSocketAt, readSse, startRun, ticketFor } from "../helpers/service-client";

/** A child that asks its person one question, then answers with what it heard. */
const askingChild = () => agentTool("asker", [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Which vendor?" } }] }, { text: "The person chose B." }], { tools: ["ask"] });

async function parentWithAskingChild(extra: Record<string, unknown> = {}): Promise<{ parentId: string; token: string; childId: string }> {
  const { run, token } = await startRun({
    messages: [{ role: "user", content: "go" }],
    tools: [askingChild()],
    minAnswerChars: 0,
    budget: { usd: 1 },
    script: [callAgents([["c1", "asker", "Ask which vendor."]]), { text: "Parent done." }],
    ...extra,
  });
  await drive(stubFor(run.id));
  const childId = (await viewOf(stubFor(run.id))).children![0]!.id;
  // The child steps to its question and its outbox (inbox, webhook, parent) is delivered.
  await settle(childId);
  return { parentId: run.id, token, childId };
}

describe("a child's question reaches people", () => {
  it("reaches the subject's inbox stream and listing, carrying parentId, and the subject's token answers it", async () => {
    const subject = freshSubject();
    const userTok = await userToken(subject);
    const socket = await openInbox("/v1/inbox/events", { Authorization: `Bearer ${userTok}` });
    const { parentId, childId } = await parentWithAskingChild({ subject });
    const waiting = await socket.next((frame) => frame.type === "run-waiting");
    expect(waiting).toMatchObject({ run: { id: childId, parentId, subject, status: "waiting", waiting: { callId: "q" } } });
    const listed = await listAll(userTok, "status=waiting");
    expect(listed.map((run) => run.id)).toContain(childId);
    expect(listed.find((run) => run.id === childId)).toMatchObject({ parentId, subject });

    const answered = await api(`/v1/runs/${childId}/answer`, userTok, { method: "POST", body: JSON.stringify({ callId: "q", content: "B" }) });
    expect(answered.status).toBe(202);
    const parent = await driveTree(parentId);
    expect(parent.status).toBe("finished");
    const ofChild = inboxEvents(socket.frames).filter((event) => event.run.id === childId).map((event) => event.type);
    expect(ofChild).toEqual(["run-started", "run-waiting", "run-answered", "run-ended"]);
    socket.close();
  });

  it("reaches the parent's webhook as run.waiting of the child", async () => {
    const name = `child-${crypto.randomUUID().slice(0, 8)}`;
    const receiver = inject("webhookReceiverUrl");
    const { parentId, childId } = await parentWithAskingChild({ webhook: { url: `${receiver}/hooks/${name}` } });
    const hooks = (await (await fetch(`${receiver}/hooks/${name}`)).json()) as { verified: boolean; body: WebhookPayload }[];
    const ofChild = hooks.filter((hook) => (hook.body.data as { run: { id: string } }).run.id === childId);
    expect(ofChild).toEqual([expect.objectContaining({ verified: true, body: expect.objectContaining({ type: "run.waiting", data: expect.objectContaining({ run: expect.objectContaining({ id: childId, parentId, status: "waiting" }) }) }) })]);
  });
});

describe("the parent's run token on a child's question and events", () => {
  it("answers the child's question; the parent takes the child's answer and finishes", async () => {
    const { parentId, token, childId } = await parentWithAskingChild();
    expect(await getRun(childId, token)).toMatchObject({ status: "waiting", parentId, waiting: { callId: "q" } });
    const answered = await api(`/v1/runs/${childId}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "B" }) });
    expect(answered.status).toBe(202);
    const parent = await driveTree(parentId);
    expect(parent).toMatchObject({ status: "finished", finalText: "Parent done." });
    expect((await getRun(childId, token)) as RunView).toMatchObject({ status: "finished", finalText: "The person chose B." });
  });

  it("watches the child's events over SSE and by a ticket asked for with the parent's token", async () => {
    const { token, childId } = await parentWithAskingChild();
    const sse = await SELF.fetch(`${BASE}/v1/runs/${childId}/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    const events = await readSse(sse, (data) => data.type === "waiting");
    expect(events.length).toBeGreaterThan(0);
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_e, i) => i + 1));

    const ticket = await ticketFor(childId, token);
    const socket = await openSocketAt(`/v1/runs/${childId}/events?ticket=${ticket}&after=0`);
    await socket.next((frame) => frame.seq === events.length);
    socket.close();
    // The ticket is the child's: it does not open another run's events.
    const other = await startRun({ messages: [{ role: "user", content: "x" }], script: [{ text: "hi" }] });
    await expectError(await api(`/v1/runs/${childId}/tickets`, other.token, { method: "POST" }), 404, "not-found");
  });
});
