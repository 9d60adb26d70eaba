// Forks through the whole Worker: the prefix is replayed from the copied journal (the fake model
// and the tool server see nothing for it), the fork's first model request is the source's for step
// atStep + 1 when nothing changed, added messages and replaced fields, a fork of a fork, who may
// fork, a bad atStep, a deleted source, images copied into the fork's blobs. A run token forks only
// a run with a subject (test/service/fork-intake.test.ts), so the sources forked by one have one.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { freshSubject, userToken } from "../helpers/inbox";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const server = () => inject("toolServerUrl");

async function countFor(key: string): Promise<number> {
  return ((await (await fetch(`${server()}/count?key=${encodeURIComponent(key)}`)).json()) as { count: number }).count;
}

const countTool = () => ({ type: "http", name: "counted", description: "counts", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${server()}/count` });

async function fork(id: string, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return api(`/v1/runs/${id}/fork`, token, { method: "POST", body: JSON.stringify(body), headers });
}

async function forked(id: string, token: string, body: Record<string, unknown>): Promise<{ run: { id: string; forkedFrom?: unknown; inheritedUsd?: number; steps: number }; token: string }> {
  const response = await fork(id, token, body);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { run: { id: string; steps: number }; token: string };
}

async function messagesOf(id: string, token: string): Promise<{ role: string; content: unknown; toolCallId?: string }[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: { role: string; content: unknown }[] }).messages;
}

/** A three-step source on the fake Anthropic server: two HTTP tool calls, then the answer. It has a subject, so its run token may fork it. */
async function threeStepSource() {
  const model = uniqueModel("claude-sonnet-5-5");
  await script(model, [
    { text: "First.", toolCalls: [{ id: "toolu_1", name: "counted", input: { n: 1 } }] },
    { text: "Second.", toolCalls: [{ id: "toolu_2", name: "counted", input: { n: 2 } }] },
    { text: "All counted, and that is the whole answer to the question you asked me." },
  ]);
  const { run, token } = await startRun({ subject: freshSubject(), provider: "anthropic", model, system: "Count.", messages: [{ role: "user", content: "count" }], tools: [countTool()], minAnswerChars: 0 });
  await driveRun(run.id);
  const source = await getRun(run.id, token);
  expect(source).toMatchObject({ status: "finished", steps: 3 });
  return { model, run: source, token };
}

describe("POST /v1/runs/:id/fork", () => {
  it("replays the prefix from the journal: no model or tool call for it, and the first live request is the source's for step atStep + 1", async () => {
    const { model, run, token } = await threeStepSource();
    expect(await recorded(model)).toHaveLength(3);
    const made = await forked(run.id, token, { atStep: 2 });
    expect(made.run).toMatchObject({ forkedFrom: { runId: run.id, step: 2 }, steps: 2, status: "running" });
    await driveRun(made.run.id);
    const requests = await recorded(model);
    // One request for the fork: step 3, the same request the source sent for its step 3.
    expect(requests).toHaveLength(4);
    expect(requests[3]!.body).toEqual(requests[2]!.body);
    for (const call of ["toolu_1", "toolu_2"]) expect(await countFor(`${made.run.id}/s1/tool/${call === "toolu_1" ? 1 : 2}/${call}`)).toBe(0);
    const view = await getRun(made.run.id, made.token);
    expect(view).toMatchObject({ status: "finished", steps: 3, forkedFrom: { runId: run.id, step: 2 } });
    // The prefix's cost is inherited, not charged: the fork spent only its own step 3.
    const sourceEvents = run.spentUsd;
    expect(view.inheritedUsd! + view.spentUsd).toBeCloseTo(sourceEvents, 12);
    expect(view.inheritedUsd).toBeGreaterThan(0);
    expect(await messagesOf(made.run.id, made.token)).toEqual(await messagesOf(run.id, token));
  });

  it("added messages come after the prefix as the user's turn; replaced fields apply to what follows", async () => {
    const { run, token } = await startRun({
      subject: freshSubject(),
      messages: [{ role: "user", content: "go" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }, { text: "Forked answer." }],
    });
    await driveRun(run.id);
    const made = await forked(run.id, token, { atStep: 1, messages: [{ role: "user", content: "Say it differently." }], system: "Be different.", maxSteps: 3 });
    expect(made.run).toMatchObject({ maxSteps: 4, steps: 1 });
    await driveRun(made.run.id);
    const messages = await messagesOf(made.run.id, made.token);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(messages[2]).toMatchObject({ toolCallId: "c1", content: "4" });
    expect(messages[3]!.content).toBe("Say it differently.");
    expect(await getRun(made.run.id, made.token)).toMatchObject({ status: "finished", steps: 2 });
  });

  it("a fork of a fork: its prefix reaches through both, and it names its own source", async () => {
    const { model, run, token } = await threeStepSource();
    const first = await forked(run.id, token, { atStep: 2 });
    await driveRun(first.run.id);
    const second = await forked(first.run.id, first.token, { atStep: 1 });
    expect(second.run).toMatchObject({ forkedFrom: { runId: first.run.id, step: 1 } });
    await driveRun(second.run.id);
    // Source 3, first fork 1 (step 3), second fork 2 (steps 2 and 3): nothing of a prefix asked again.
    const requests = await recorded(model);
    expect(requests).toHaveLength(6);
    expect(requests[4]!.body).toEqual(requests[1]!.body);
    expect(await countFor(`${second.run.id}/s1/tool/1/toolu_1`)).toBe(0);
    // Its prefix is resumable (its source went on after step 1): it goes on in a segment of its own, where step 2 is that segment's first.
    expect(await countFor(`${second.run.id}/s1/tool/2/toolu_2`)).toBe(0);
    expect(await countFor(`${second.run.id}/s2/tool/1/toolu_2`)).toBe(1);
    expect(await getRun(second.run.id, second.token)).toMatchObject({ status: "finished", steps: 3 });
  });

  it("who may fork: the source's run token, its subject's user token, the deployment token; another run's or subject's token is 404", async () => {
    const subject = freshSubject();
    const { run, token } = await startRun({ subject, messages: [{ role: "user", content: "hi" }], script: [{ text: "one" }] });
    await driveRun(run.id);
    const other = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "other" }] });
    expect((await fork(run.id, other.token, { atStep: 1 })).status).toBe(404);
    expect((await fork(run.id, await userToken(freshSubject()), { atStep: 1 })).status).toBe(404);
    const byRunToken = await forked(run.id, token, { atStep: 1 });
    expect((await getRun(byRunToken.run.id, TEST_API_TOKEN)).subject).toBe(subject);
    const byUser = await fork(run.id, await userToken(subject), { atStep: 1 });
    expect(byUser.status, await byUser.clone().text()).toBe(201);
    const byDeployment = await fork(run.id, TEST_API_TOKEN, { atStep: 1 });
    expect(byDeployment.status).toBe(201);
    // A user token may not add HTTP tools to a fork.
    const tools = await fork(run.id, await userToken(subject), { atStep: 1, tools: [countTool()] });
    expect(tools.status).toBe(400);
  });

  it("a bad atStep is a 400 naming the last committed step; a deleted source is a 404; the same Idempotency-Key makes one fork", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "one" }] });
    await driveRun(run.id);
    const past = await fork(run.id, token, { atStep: 2 });
    expect(past.status).toBe(400);
    const error = ((await past.json()) as { error: { code: string; message: string; issues: { path: string }[] } }).error;
    expect(error.message).toMatch(/last committed step is 1/);
    expect(error.issues[0]!.path).toBe("atStep");
    expect((await fork(run.id, token, { atStep: -1 })).status).toBe(400);
    expect((await fork(run.id, token, { atStep: 1, nope: true })).status).toBe(400);
    expect((await fork(run.id, token, { atStep: 1, messages: [{ role: "assistant", content: "x" }] })).status).toBe(400);
    const once = await forked(run.id, TEST_API_TOKEN, { atStep: 1 });
    const again = await fork(run.id, TEST_API_TOKEN, { atStep: 1 }, { "Idempotency-Key": "same" });
    const repeat = await fork(run.id, TEST_API_TOKEN, { atStep: 1 }, { "Idempotency-Key": "same" });
    const [a, b] = [(await again.json()) as { run: { id: string } }, (await repeat.json()) as { run: { id: string } }];
    expect(a.run.id).toBe(b.run.id);
    expect(a.run.id).not.toBe(once.run.id);
    expect((await api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" })).status).toBe(204);
    expect((await fork(run.id, TEST_API_TOKEN, { atStep: 1 })).status).toBe(404);
  });

  it("a fork at step 0 begins before the source's first model call: its given messages, the fork's own after them, every model call its own", async () => {
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], minAnswerChars: 0, script: [{ text: "one" }, { text: "two" }] });
    await driveRun(run.id);
    const same = await forked(run.id, TEST_API_TOKEN, { atStep: 0 });
    expect(same.run).toMatchObject({ forkedFrom: { runId: run.id, step: 0 }, inheritedUsd: 0, steps: 0 });
    await driveRun(same.run.id);
    expect(await getRun(same.run.id, same.token)).toMatchObject({ status: "finished", steps: 1, finalText: "one" });
    const other = await forked(run.id, TEST_API_TOKEN, { atStep: 0, messages: [{ role: "user", content: "And more." }] });
    await driveRun(other.run.id);
    const { messages } = (await (await api(`/v1/runs/${other.run.id}/messages`, other.token)).json()) as { messages: unknown[] };
    expect(messages).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: "And more." },
      { role: "assistant", content: "one" },
    ]);
  });

  it("the source's images are copied into the fork's own blobs", async () => {
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 9, 9, 9]);
    const data = btoa(String.fromCharCode(...bytes));
    const { run, token } = await startRun({
      subject: freshSubject(),
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", data }] }],
      script: [{ text: "A tiny PNG." }],
    });
    await driveRun(run.id);
    const made = await forked(run.id, token, { atStep: 1, messages: [{ role: "user", content: "And now?" }] });
    const listed = await env.BLOBS.list({ prefix: `runs/${made.run.id}/` });
    const own = (await env.BLOBS.list({ prefix: `runs/${run.id}/` })).objects.map((o) => o.key.slice(`runs/${run.id}/`.length));
    expect(listed.objects.map((o) => o.key.slice(`runs/${made.run.id}/`.length))).toEqual(own);
    expect(own.length).toBe(1);
    await driveRun(made.run.id);
    expect((await getRun(made.run.id, made.token)).status).toBe("finished");
  });
});
