// Messages while a run works: POST /v1/runs/:id/messages on a running run, through the service.
// queue (after the turn's tool results, before the next model call), interrupt (the model call in
// flight aborted and made again with the message), several in order, a crash between storing and
// using a message (never lost, never twice), and the 409 of a waiting run.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import type { ChatMessage } from "../../src/loop/types";
import { textOf } from "../../src/loop";
import { recorded, requestsWhen, script, uniqueModel } from "../fake-anthropic/client";
import { expectError } from "../helpers/http";
import { journalKeys, storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { runSteps } from "../helpers/slices";
import { watch } from "../helpers/watch";

type AnthropicBody = { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> };

const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });

function send(id: string, token: string, body: unknown): Promise<Response> {
  return api(`/v1/runs/${id}/messages`, token, { method: "POST", body: JSON.stringify(body) });
}

async function sent(id: string, token: string, body: unknown): Promise<RunView> {
  const response = await send(id, token, body);
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as RunView;
}

async function historyOf(id: string, token: string): Promise<string[]> {
  const { messages } = (await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] };
  return messages.map((message) => `${message.role}:${textOf(message.content)}`);
}

const userMessages = async (id: string) => (await storedEvents(stubFor(id))).filter((event): event is Extract<StoredEvent, { type: "user-message" }> => event.type === "user-message");

/** The texts of a recorded Anthropic request, in order (tool results as "tool_result"). */
function requestTexts(body: unknown): string[] {
  return (body as AnthropicBody).messages.flatMap((message) =>
    typeof message.content === "string" ? [message.content] : message.content.map((block) => (block.type === "text" ? block.text! : block.type)),
  );
}

async function messageRows(id: string): Promise<{ id: string; taken: string | null }[]> {
  return runInDurableObject(stubFor(id), (_instance, state) => state.storage.sql.exec<{ id: string; taken: string | null }>("SELECT id, taken FROM user_message ORDER BY seq").toArray());
}

describe("messages while a run works", () => {
  it("queue: stored at once, then in the next model request after the turn's tool results; a user-message event marks the place", async () => {
    const model = uniqueModel();
    await script(model, [calc(1), { text: "Both done." }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Add." }], tools: ["calculator"], minAnswerChars: 0 });
    // Model call 1 is done; its calculator call is not run yet.
    await runSteps(stubFor(run.id), 1);
    const view = await sent(run.id, token, { content: "Also tell me 2 + 2." });
    expect(view).toMatchObject({ id: run.id, status: "running" });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Both done.", steps: 2 });
    expect(await historyOf(run.id, token)).toEqual(["user:Add.", "assistant:Step 1.", "tool:2", "user:Also tell me 2 + 2.", "assistant:Both done."]);
    const requests = await recorded(model);
    expect(requests).toHaveLength(2);
    expect(requestTexts(requests[0]!.body)).not.toContain("Also tell me 2 + 2.");
    expect(requestTexts(requests[1]!.body).slice(-2)).toEqual(["tool_result", "Also tell me 2 + 2."]);
    const [event] = await userMessages(run.id);
    expect(event).toMatchObject({ type: "user-message", step: 2, mode: "queue", content: "Also tell me 2 + 2." });
    expect(event!.messageId).toMatch(/^msg_/);
    expect(await journalKeys(stubFor(run.id))).toContain("s1/messages/2/1");
  });

  it("several messages keep their order, each once, at the model call after they came", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Count." }],
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [calc(1), calc(2), { text: "Counted." }],
    });
    const stub = stubFor(run.id);
    await runSteps(stub, 1);
    expect((await sent(run.id, token, { content: "one" })).queuedMessages).toBe(1);
    expect((await sent(run.id, token, { content: "two" })).queuedMessages).toBe(2);
    expect((await getRun(run.id, token)).queuedMessages).toBe(2);
    // The calculator call, the take of "one" and "two", then model call 2: the slice stops before call 2's calculator.
    await runSteps(stub, 3);
    // Taken into the history: none wait.
    expect((await getRun(run.id, token)).queuedMessages).toBeUndefined();
    await sent(run.id, token, { content: "three", mode: "queue" });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).queuedMessages).toBeUndefined();
    expect(await historyOf(run.id, token)).toEqual([
      "user:Count.",
      "assistant:Step 1.",
      "tool:2",
      "user:one",
      "user:two",
      "assistant:Step 2.",
      "tool:3",
      "user:three",
      "assistant:Counted.",
    ]);
    expect((await userMessages(run.id)).map((event) => [event.content, event.step])).toEqual([
      ["one", 2],
      ["two", 2],
      ["three", 3],
    ]);
    expect((await messageRows(run.id)).map((row) => row.taken)).toEqual(["s1/messages/2/1", "s1/messages/2/1", "s1/messages/3/1"]);
  });

  it("a crash between storing a message and using it loses nothing and takes nothing twice", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Work." }],
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [calc(1), calc(2), { text: "Finished." }],
    });
    // A stub per call: one that saw its object aborted stays broken.
    await runSteps(stubFor(run.id), 1);
    await sent(run.id, token, { content: "stored before the crash" });
    // Crash 1: the message is stored, nothing took it yet.
    await abortAllDurableObjects();
    expect(await messageRows(run.id)).toEqual([expect.objectContaining({ taken: null })]);
    // The calculator call and the take commit; the slice ends before model call 2.
    await runSteps(stubFor(run.id), 2);
    expect(await messageRows(run.id)).toEqual([expect.objectContaining({ taken: "s1/messages/2/1" })]);
    // Crash 2: after the take's transaction, before the model call that uses it.
    await abortAllDurableObjects();
    // A message that came after model call 2 was made goes before call 3, even on a replay of call 2.
    await runSteps(stubFor(run.id), 1);
    await sent(run.id, token, { content: "after call 2" });
    await abortAllDurableObjects();
    let slices = 0;
    while ((await getRun(run.id, token)).status === "running" && slices++ < 20) await runDurableObjectAlarm(stubFor(run.id));
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Finished." });
    const history = await historyOf(run.id, token);
    expect(history).toEqual(["user:Work.", "assistant:Step 1.", "tool:2", "user:stored before the crash", "assistant:Step 2.", "tool:3", "user:after call 2", "assistant:Finished."]);
    expect((await userMessages(run.id)).map((event) => event.step)).toEqual([2, 3]);
  });

  it("interrupt: the model call in flight is aborted (its text dropped, its reported cost counted) and made again with the message", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "An answer that takes the message into account.", failures: [{ hang: true }] }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Write an essay." }], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    // The first attempt streams its first words and holds: the run has them (and the prompt's
    // tokens, reported before them) once its live text shows; the request reaching the fake
    // server is not enough, the stream may still be on its way.
    await requestsWhen(model, { requests: 1 });
    await watcher.next((frame) => frame.type === "text");
    watcher.close();
    const view = await sent(run.id, token, { content: "Make it a haiku instead.", mode: "interrupt" });
    expect(view.status).toBe("running");
    await alarm;
    await driveRun(run.id);
    const after = await getRun(run.id, token);
    expect(after).toMatchObject({ status: "finished", finalText: "An answer that takes the message into account.", steps: 1 });
    const requests = await recorded(model);
    expect(requests).toHaveLength(2);
    expect(requestTexts(requests[1]!.body)).toEqual(["Write an essay.", "Make it a haiku instead."]);
    expect(await historyOf(run.id, token)).toEqual(["user:Write an essay.", "user:Make it a haiku instead.", "assistant:An answer that takes the message into account."]);
    const events = await storedEvents(stub);
    const models = events.filter((event) => event.type === "model");
    expect(models).toHaveLength(1);
    expect(events.find((event) => event.type === "user-message")).toMatchObject({ step: 1, mode: "interrupt" });
    // The aborted attempt's prompt tokens were reported (message_start): its cost counts in the run's spend.
    const modelCost = (models[0] as Extract<StoredEvent, { type: "model" }>).costUsd;
    expect(after.spentUsd).toBeGreaterThan(modelCost);
    expect(await journalKeys(stub)).toEqual(expect.arrayContaining(["s1/messages/1/1", "s1/model/1"]));
  });

  it("interrupt with no model call in flight is queued; a waiting run answers 409 with a hint to answer; a finished run is continued", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Ask me." }],
      tools: ["ask", "calculator"],
      minAnswerChars: 0,
      script: [calc(1), { text: "A question.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Go on?" } }] }, { text: "Done." }, { text: "Continued." }],
    });
    const stub = stubFor(run.id);
    await runSteps(stub, 1);
    // Between model call 1 and its calculator call: nothing to abort, so it waits for call 2.
    await sent(run.id, token, { content: "no call to interrupt", mode: "interrupt" });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "waiting", waiting: { callId: "q1" } });
    expect((await userMessages(run.id)).map((event) => [event.step, event.mode])).toEqual([[2, "interrupt"]]);
    const refused = await expectError(await send(run.id, token, { content: "hello?" }), 409, "conflict");
    expect(refused.error.message).toContain("answer");
    expect(refused.error.message).toContain("q1");
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q1", content: "Yes." }) })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done." });
    await sent(run.id, token, { content: "And now?", mode: "interrupt" });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Continued." });
    expect((await historyOf(run.id, token)).slice(-2)).toEqual(["user:And now?", "assistant:Continued."]);
  });

  it("bad input is a 400 naming the field, and stores nothing", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi." }], script: [{ text: "Hello." }] });
    const bad = await expectError(await send(run.id, token, { content: "x", mode: "shout" }), 400, "invalid-request");
    expect(bad.error.issues?.[0]?.path).toBe("mode");
    await expectError(await send(run.id, token, { mode: "queue" }), 400, "invalid-request");
    expect(await messageRows(run.id).catch(() => [])).toEqual([]);
  });
});
