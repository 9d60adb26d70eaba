// The AI SDK chat routes driven by the AI SDK's own clients, ai 5, 6 and 7 side by side: AbstractChat
// with DefaultChatTransport over SELF.fetch, against scripted runs whose alarms the test fires. The
// client's own parser checks every chunk (a chunk its version refuses is a stream error, caught as
// the chat's error); held turns make "a step in flight" a state, not a race.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
import { expectError } from "../helpers/http";
import { stubFor } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { chatHistory as history, resumeDriven, testChat, textOf, transportFor, type ChatVersion, type UIMessageLike } from "../helpers/ai-chat";
import { PNG } from "../helpers/bad-input/requests";

const VERSIONS: ChatVersion[] = ["v5", "v6", "v7"];

describe.each(VERSIONS)("AI SDK chat, %s", (version) => {
  it("sends a message to a finished run (a continue) and streams the answer; the history has the same ids", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello! How can I help?" }, { text: "Here is more, in several words." }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors, statuses } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    expect(chat.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello! How can I help?"],
    ]);
    const sent = chat.sendMessage({ text: "More?" });
    await nextResponse();
    await driveRun(run.id);
    await sent;
    expect(errors).toEqual([]);
    expect(statuses).toEqual([200]);
    expect(chat.status).toBe("ready");
    const last = chat.messages.at(-1)!;
    expect(last).toMatchObject({ id: `${run.id}-2`, role: "assistant" });
    expect(textOf(last)).toBe("Here is more, in several words.");
    const stored = await history(version, run.id, token);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored.at(-1)!.id).toBe(last.id);
    expect(textOf(stored.at(-1))).toBe(textOf(last));
  });

  it("an image file part the app sends reaches the run as an image of the person's message", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello!" }, { text: "A very small picture." }] });
    await driveRun(run.id);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    const sent = chat.sendMessage({ text: "What is this?", files: [{ type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` }] } as never);
    await nextResponse();
    await driveRun(run.id);
    await sent;
    expect(errors).toEqual([]);
    expect(textOf(chat.messages.at(-1))).toBe("A very small picture.");
    // The run holds the image (stored by hash, as every image a run is given), in the parts' order
    // (the AI SDK puts a message's files before its text); the chat history shows the text.
    const response = await api(`/v1/runs/${run.id}/messages`, token);
    const { messages } = (await response.json()) as { messages: { role: string; content: unknown }[] };
    expect(messages.filter((message) => message.role === "user").at(-1)!.content).toEqual([
      { type: "image", mimeType: "image/png", hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown as string },
      { type: "text", text: "What is this?" },
    ]);
    expect(textOf((await history(version, run.id, token)).filter((message) => message.role === "user").at(-1))).toBe("What is this?");
  });

  it("an ask: the stream ends with the call open, addToolOutput + sendAutomaticallyWhen answers it, the same message goes on", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Paint it." }],
      tools: ["ask"],
      minAnswerChars: 0,
      script: [{ text: "One question first.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which color?" } }] }, { text: "Blue it is." }],
    });
    const { chat, nextResponse, nextFinish, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token), automatic: "tool-calls" });
    await resumeDriven({ chat, nextResponse, errors }, run.id);
    const asked = chat.messages.at(-1)!;
    expect(asked.id).toBe(`${run.id}-1`);
    expect(asked.parts.find((part) => part.type === "tool-ask")).toMatchObject({ toolCallId: "q1", state: "input-available", input: { question: "Which color?" } });
    const finished = nextFinish();
    void chat.addToolOutput({ tool: "ask", toolCallId: "q1", output: "Blue" });
    await nextResponse();
    expect((await getRun(run.id, token)).status).toBe("running");
    await driveRun(run.id);
    await finished;
    expect(errors).toEqual([]);
    expect(chat.messages.map((m) => m.id)).toEqual([...chat.messages.slice(0, -1).map((m) => m.id), `${run.id}-1`]);
    expect(textOf(chat.messages.at(-1))).toBe("One question first.Blue it is.");
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Blue it is." });
    const stored = await history(version, run.id, token);
    expect(stored.at(-1)).toMatchObject({ id: `${run.id}-1` });
    expect(stored.at(-1)!.parts.find((part) => part.type === "tool-ask")).toMatchObject({ state: "output-available", output: "Blue" });
  });

  it("a person's text while the run asks is the answer: it shows where it was sent, the reply after it, and a reload gives the same, ids and all", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Paint it." }],
      tools: ["ask"],
      minAnswerChars: 0,
      script: [{ text: "One question.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which color?" } }] }, { text: "Green it is." }],
    });
    await driveRun(run.id);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    const sent = chat.sendMessage({ text: "Green" });
    await nextResponse();
    await driveRun(run.id);
    await sent;
    expect(errors).toEqual([]);
    const typed = chat.messages[2]!;
    expect(chat.messages.map((m) => [m.id, m.role, textOf(m)])).toEqual([
      [`${run.id}-given-0`, "user", "Paint it."],
      [`${run.id}-1`, "assistant", "One question."],
      [typed.id, "user", "Green"],
      [`${run.id}-1-1`, "assistant", "Green it is."],
    ]);
    const stored = await history(version, run.id, token);
    expect(stored.map((m) => [m.id, m.role, textOf(m)])).toEqual(chat.messages.map((m) => [m.id, m.role, textOf(m)]));
    // The ask's part shows its answer after the reload (the page's stream had ended at the ask).
    expect(stored[1]!.parts.find((part) => part.type === "tool-ask")).toMatchObject({ state: "output-available", output: "Green" });
  });

  it("a client tool: the app answers with addToolOutput, the whole result reaches the run and comes back whole", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Where am I?" }],
      tools: [{ type: "client", name: "locate", description: "The user's location.", inputSchema: { type: "object", properties: {} } }],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "l1", name: "locate", input: {} }] }, { text: "You are in Paris." }],
    });
    await driveRun(run.id);
    // It waits: nothing to resume.
    expect((await api(`/v1/ai-sdk/${version}/chat/${run.id}/stream`, token)).status).toBe(204);
    const second = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token), automatic: "tool-calls" });
    expect(second.chat.messages.at(-1)!.parts.find((part) => part.type === "tool-locate")).toMatchObject({ state: "input-available", toolCallId: "l1" });
    // The hydrated message holds the open call: the app answers it as onToolCall would have.
    const finished = second.nextFinish();
    void second.chat.addToolOutput({ tool: "locate", toolCallId: "l1", output: { city: "Paris", note: "x".repeat(300) } });
    await second.nextResponse();
    await driveRun(run.id);
    await finished;
    expect(second.errors).toEqual([]);
    expect(textOf(second.chat.messages.at(-1))).toBe("You are in Paris.");
    const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string; content: unknown }[] };
    expect(messages.find((m) => m.role === "tool" && m.toolCallId === "l1")?.content).toBe(JSON.stringify({ city: "Paris", note: "x".repeat(300) }));
    // The history gives the whole result back as the object it was, not the event's 200-character summary.
    const stored = await history(version, run.id, token);
    expect(stored.at(-1)!.parts.find((part) => part.type === "tool-locate")).toMatchObject({ state: "output-available", output: { city: "Paris", note: "x".repeat(300) } });
    expect(second.chat.messages.at(-1)!.parts.find((part) => part.type === "tool-locate")).toMatchObject({ state: "output-available", output: { city: "Paris", note: "x".repeat(300) } });
  });

  it("an approval (v5: a client tool whose output is { approved }): denied, the call ends denied and the run goes on", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Deploy it." }],
      tools: [{ type: "http", name: "deploy", description: "Deploy.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/deploy", approval: true }],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "d1", name: "deploy", input: { env: "prod" } }] }, { text: "Not deployed, as you wish." }],
    });
    await driveRun(run.id);
    const { chat, nextResponse, nextFinish, errors } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token), automatic: version === "v5" ? "tool-calls" : "approvals" });
    const part = chat.messages.at(-1)!.parts.find((p) => p.type === "tool-deploy")!;
    const finished = nextFinish();
    if (version === "v5") {
      expect(part).toMatchObject({ state: "input-available", toolCallId: "d1" });
      void chat.addToolOutput({ tool: "deploy", toolCallId: "d1", output: { approved: false } });
    } else {
      expect(part).toMatchObject({ state: "approval-requested", approval: { id: "d1" } });
      void chat.addToolApprovalResponse({ id: "d1", approved: false });
    }
    await nextResponse();
    await driveRun(run.id);
    await finished;
    expect(errors).toEqual([]);
    const last = chat.messages.at(-1)!;
    expect(textOf(last)).toBe("Not deployed, as you wish.");
    expect(last.parts.find((p) => p.type === "tool-deploy")).toMatchObject(version === "v5" ? { state: "output-error", errorText: "Denied by the person." } : { state: "output-denied" });
  });

  it("a message while the run works is queued (mode queue): it shows where it went in, the reply after it, and a reload gives the same, ids and all", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Start." }], minAnswerChars: 0, script: [{ hold: "first", streamBeforeHold: 8, chunk: 8, text: "Working on it." }, { text: "Noted your message." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "text");
    const { chat, nextResponse, errors, until } = testChat({ version, runId: run.id, token, messages: await history(version, run.id, token) });
    // The page shows the answer streaming, and the person sends meanwhile.
    const resumed = chat.resumeStream();
    await nextResponse();
    await until(() => textOf(chat.messages.at(-1)) === "Working ", "the step's text so far");
    const sent = chat.sendMessage({ text: "Also mention cats." });
    await nextResponse();
    await releaseHold(run.id, "first");
    await alarm;
    await driveRun(run.id);
    await Promise.all([resumed, sent]);
    watcher.close();
    expect(errors).toEqual([]);
    const queued = chat.messages[2]!;
    expect(chat.messages.map((m) => [m.id, m.role, textOf(m)])).toEqual([
      [`${run.id}-given-0`, "user", "Start."],
      [`${run.id}-1`, "assistant", "Working on it."],
      [queued.id, "user", "Also mention cats."],
      [`${run.id}-1-1`, "assistant", "Noted your message."],
    ]);
    // The reply begins with the message it answers, as a part (a tab that did not send it sees it there).
    expect(chat.messages[3]!.parts[0]).toMatchObject({ type: "data-ratchet-user-message", id: queued.id, data: { mode: "queue", content: "Also mention cats." } });
    const stored = await history(version, run.id, token);
    expect(stored.map((m) => [m.id, m.role, textOf(m)])).toEqual(chat.messages.map((m) => [m.id, m.role, textOf(m)]));
    expect(stored[3]!.parts[0]).toEqual(chat.messages[3]!.parts[0]);
  });

  it("a reconnect in the middle of a step gets the step's text so far, then the rest, under the same message id", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Tell me." }], minAnswerChars: 0, script: [{ hold: "mid", streamBeforeHold: 12, chunk: 4, text: "The first part, then the rest of it." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    // The step has streamed its first 12 characters and holds: it is in flight.
    await watcher.next((frame) => frame.type === "text" && frame.delta === "t pa");
    const transport = transportFor(version, token);
    const stream = await transport.reconnect(run.id);
    expect(stream).not.toBeNull();
    const snapshots = transport.read(stream!)[Symbol.asyncIterator]();
    let message = (await snapshots.next()).value as UIMessageLike;
    while (textOf(message) === "") message = (await snapshots.next()).value as UIMessageLike;
    expect(message.id).toBe(`${run.id}-1`);
    expect(textOf(message)).toBe("The first pa");
    await releaseHold(run.id, "mid");
    await alarm;
    for (;;) {
      const next = await snapshots.next();
      if (next.done === true) break;
      message = next.value as UIMessageLike;
    }
    watcher.close();
    expect(textOf(message)).toBe("The first part, then the rest of it.");
    expect(message.id).toBe(`${run.id}-1`);
  });

  it("a failed run is retried by regenerate: the same message, whole, and no error", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Compute." }],
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [{ text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] }, { error: "overloaded", once: true, text: "It is 4." }],
    });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).status).toBe("failed");
    const hydrated = await history(version, run.id, token);
    const { chat, nextResponse, errors } = testChat({ version, runId: run.id, token, messages: hydrated });
    expect(chat.messages.at(-1)).toMatchObject({ id: `${run.id}-1`, role: "assistant" });
    const again = chat.regenerate();
    await nextResponse();
    await driveRun(run.id);
    await again;
    expect(errors).toEqual([]);
    const last = chat.messages.at(-1)!;
    expect(last.id).toBe(`${run.id}-1`);
    expect(textOf(last)).toBe("Adding.It is 4.");
    expect(last.parts.find((part) => part.type === "tool-calculator")).toMatchObject({ state: "output-available", output: "4" });
    expect((await getRun(run.id, token)).status).toBe("finished");
  });
});

describe("AI SDK chat errors, in the API's error shape", () => {
  it("a version the routes do not speak is 404; an unknown run 404; a wrong token 401 or 404; a message that fits no state 409", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello." }] });
    const other = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello." }] });
    await driveRun(run.id);
    const body = (id: string, message: unknown) => JSON.stringify({ id, messages: [message], trigger: "submit-message" });
    const user = { id: "m1", role: "user", parts: [{ type: "text", text: "Again" }] };
    const post = (v: string, id: string, message: unknown, bearer = token) =>
      api(`/v1/ai-sdk/${v}/chat`, bearer, { method: "POST", body: body(id, message) });
    await expectError(await post("v4", run.id, user), 404, "not-found");
    await expectError(await api(`/v1/ai-sdk/v8/chat/${run.id}/messages`, token), 404, "not-found");
    await expectError(await api(`/v1/ai-sdk/v7/chat/run_doesnotexist0000000000/stream`, token), 404, "not-found");
    await expectError(await post("v7", run.id, user, other.token), 404, "not-found");
    await expectError(await post("v7", run.id, user, "not-a-token"), 401, "unauthorized");
    await expectError(await api(`/v1/ai-sdk/v6/chat/${run.id}/messages`, "rt_wrongwrongwrongwrongwrongwrong"), 401, "unauthorized");
    const assistant = { id: `${run.id}-1`, role: "assistant", parts: [{ type: "tool-ask", toolCallId: "q9", state: "output-available", input: {}, output: "x" }] };
    const refused = await expectError(await post("v5", run.id, assistant), 409, "conflict");
    expect(refused.error.message).toContain("finished");
    const regenerate = await api(`/v1/ai-sdk/v6/chat`, token, { method: "POST", body: JSON.stringify({ id: run.id, messages: [user], trigger: "regenerate-message" }) });
    await expectError(regenerate, 409, "conflict");
    await expectError(await api(`/v1/ai-sdk/v7/chat`, token, { method: "POST", body: JSON.stringify({ messages: [user] }) }), 400, "invalid-request");
  });

  it("CORS as CORS_ORIGINS says: a preflight and the answers (errors too) carry the allowed origin, another origin gets none", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello." }] });
    const origin = "https://app.ratchet.test";
    const preflight = await api(`/v1/ai-sdk/v7/chat`, token, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    const stream = await api(`/v1/ai-sdk/v7/chat/${run.id}/stream`, token, { headers: { Origin: origin } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("access-control-allow-origin")).toBe(origin);
    expect(Object.fromEntries(["content-type", "x-vercel-ai-ui-message-stream", "cache-control", "x-accel-buffering"].map((name) => [name, stream.headers.get(name)]))).toEqual({
      "content-type": "text/event-stream",
      "x-vercel-ai-ui-message-stream": "v1",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    });
    await stream.body!.cancel();
    const refused = await api(`/v1/ai-sdk/v9/chat/${run.id}/stream`, token, { headers: { Origin: origin } });
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin);
    await expectError(refused, 404, "not-found");
    const other = await api(`/v1/ai-sdk/v7/chat/${run.id}/messages`, token, { headers: { Origin: "https://evil.test" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    await other.body!.cancel();
  });
});
