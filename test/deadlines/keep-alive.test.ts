// Every SSE stream sends a keep-alive (a comment line, `: keep-alive`) once it has been quiet for
// SSE_KEEPALIVE_SECONDS (1 in this project): the run's events, the inbox's, the AI SDK chat's POST
// and its GET …/stream, A2A's SendStreamingMessage and SubscribeToTask, the AG-UI door's stream. The quiet is a model call
// held by the scripted provider (released only after the keep-alive came), so nothing else can be
// what arrived; each stream is read by the client that uses it (the AI SDK's transport, the A2A
// SDK's client) through a fetch that keeps the bytes, and goes on to its end after the keep-alives.
import { TaskState } from "@a2a-js/sdk";
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { DefaultChatTransport } from "ai";
import { describe, expect, it } from "vitest";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { textPart, userMessage, workerFetch } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { freshSubject, userToken } from "../helpers/inbox";
import { API_TOKEN } from "../helpers/http";
import { stubFor } from "../helpers/runs";
import { BASE, driveRun, releaseHold, startRun } from "../helpers/service-client";
import { hasKeepAlive, sseTap, type SseTap } from "../helpers/sse-tap";
import { watch } from "../helpers/watch";
import { HttpAgent } from "@ag-ui/client";

const selfFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init);

/** Everything an async iterable yields, read in the background; `done` resolves with all of it. */
function collect<T>(items: AsyncIterable<T>): { items: T[]; done: Promise<T[]>; first: Promise<T> } {
  const all: T[] = [];
  let firstOne: (item: T) => void = () => undefined;
  const first = new Promise<T>((resolve) => (firstOne = resolve));
  const done = (async () => {
    for await (const item of items) {
      if (all.length === 0) firstOne(item);
      all.push(item);
    }
    return all;
  })();
  return { items: all, done, first };
}

/**
 * Starts the run's next slice, which holds in its model call, and waits until `tap` has seen a
 * keep-alive sent after the hold began; then releases the hold and lets the run finish.
 */
async function keepAliveWhileHeld(tap: SseTap, runId: string, hold: string): Promise<void> {
  const stub = stubFor(runId);
  const watcher = await watch(stub);
  const slice = runDurableObjectAlarm(stub);
  await watcher.next((frame) => frame.type === "step-start");
  const from = tap.text().length;
  await tap.until((text) => hasKeepAlive(text.slice(from)), 10_000, "no keep-alive came while the model call held");
  watcher.close();
  await releaseHold(runId, hold);
  await slice;
  await driveRun(runId);
}

function a2aClientThrough(tap: SseTap, name: string): Promise<Client> {
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: tap.fetch })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: workerFetch(undefined) }) });
  return factory.createFromUrl(`${BASE}/a2a/${name}/`);
}

describe("keep-alives on every SSE stream", () => {
  it("the AG-UI door's stream sends one while a model call holds; HttpAgent reads the run to its end", async () => {
    const name = agentName("ka-ag-ui");
    await makeAgent({ name, run: scriptedTemplate("", { script: [{ hold: "ka-ag-ui", text: "Done, after a while." }] }) });
    const tap = sseTap(selfFetch);
    let opened: (runId: string) => void = () => undefined;
    const runId = new Promise<string>((resolve) => (opened = resolve));
    const agent = new HttpAgent({
      url: `${BASE}/v1/ag-ui/${name}`,
      headers: { Authorization: `Bearer ${API_TOKEN}` },
      fetch: async (url, init) => {
        const response = await tap.fetch(url, init);
        opened(response.headers.get("x-ratchet-run-id") ?? "");
        return response;
      },
    });
    agent.addMessage({ id: "u1", role: "user", content: "Take your time." });
    const running = agent.runAgent();
    await keepAliveWhileHeld(tap, await runId, "ka-ag-ui");
    await running;
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Done, after a while." });
    tap.close();
  });

  it("GET /v1/runs/{id}/events sends one while a model call holds", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Take your time." }], minAnswerChars: 0, script: [{ hold: "ka-events", text: "Done." }] });
    const tap = sseTap(selfFetch);
    const response = await tap.fetch(`${BASE}/v1/runs/${run.id}/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
    expect(response.status).toBe(200);
    await keepAliveWhileHeld(tap, run.id, "ka-events");
    await tap.until((text) => text.includes('"type":"end"'), 10_000, "the stream went on to the run's end");
    await response.body?.cancel();
    tap.close();
  });

  it("GET /v1/inbox/events sends one while nothing changes", async () => {
    const token = await userToken(freshSubject("ka-inbox"));
    const tap = sseTap(selfFetch);
    const response = await tap.fetch(`${BASE}/v1/inbox/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
    expect(response.status).toBe(200);
    await tap.until(hasKeepAlive, 10_000, "no keep-alive came on a quiet inbox stream");
    await response.body?.cancel();
    tap.close();
  });

  it("the AI SDK chat's POST sends one while a model call holds; the AI SDK reads the message to its end", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi." }], minAnswerChars: 0, script: [{ text: "Hello." }, { hold: "ka-chat", text: "Still here." }] });
    await driveRun(run.id);
    const tap = sseTap(selfFetch);
    const transport = new DefaultChatTransport({ api: `${BASE}/v1/ai-sdk/v7/chat`, headers: { Authorization: `Bearer ${token}` }, fetch: tap.fetch });
    const chunks = await transport.sendMessages({
      chatId: run.id,
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Are you there?" }] }],
    });
    const read = collect(chunks as AsyncIterable<{ type: string; delta?: string }>);
    await keepAliveWhileHeld(tap, run.id, "ka-chat");
    const all = await read.done;
    expect(all.filter((chunk) => chunk.type === "text-delta").map((chunk) => chunk.delta).join("")).toBe("Still here.");
    expect(all.at(-1)?.type).toBe("finish");
    tap.close();
  });

  it("the AI SDK chat's GET …/stream (a reconnect) sends one while a model call holds", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Hi." }], minAnswerChars: 0, script: [{ hold: "ka-chat-get", text: "Here I am." }] });
    const tap = sseTap(selfFetch);
    const transport = new DefaultChatTransport({ api: `${BASE}/v1/ai-sdk/v7/chat`, headers: { Authorization: `Bearer ${token}` }, fetch: tap.fetch });
    const chunks = await transport.reconnectToStream({ chatId: run.id });
    expect(chunks).not.toBeNull();
    const read = collect(chunks! as AsyncIterable<{ type: string; delta?: string }>);
    await keepAliveWhileHeld(tap, run.id, "ka-chat-get");
    const all = await read.done;
    expect(all.filter((chunk) => chunk.type === "text-delta").map((chunk) => chunk.delta).join("")).toBe("Here I am.");
    tap.close();
  });

  it("A2A SendStreamingMessage sends one while a model call holds; the SDK's stream goes on to the end", async () => {
    const name = agentName("ka-a2a-send");
    await makeAgent({ name, run: scriptedTemplate("", { script: [{ hold: "ka-a2a-send", text: "Done at last." }] }) });
    const tap = sseTap(workerFetch(API_TOKEN));
    const client = await a2aClientThrough(tap, name);
    const read = collect(client.sendMessageStream({ message: userMessage([textPart("Take your time.")]) } as never));
    const first = (await read.first) as { payload?: { $case: string; value: { contextId: string } } };
    expect(first.payload?.$case).toBe("task");
    await keepAliveWhileHeld(tap, first.payload!.value.contextId, "ka-a2a-send");
    const all = (await read.done) as { payload?: { $case: string; value: { status?: { state: number } } } }[];
    expect(all.at(-1)?.payload).toMatchObject({ $case: "statusUpdate", value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    tap.close();
  });

  it("A2A SubscribeToTask sends one while a model call holds", async () => {
    const name = agentName("ka-a2a-sub");
    await makeAgent({ name, run: scriptedTemplate("", { script: [{ hold: "ka-a2a-sub", text: "Done at last." }] }) });
    const tap = sseTap(workerFetch(API_TOKEN));
    const client = await a2aClientThrough(tap, name);
    const task = (await client.sendMessage({ message: userMessage([textPart("Take your time.")]), configuration: { returnImmediately: true } } as never)) as { id: string; contextId: string };
    const read = collect(client.resubscribeTask({ id: task.id } as never));
    await read.first;
    await keepAliveWhileHeld(tap, task.contextId, "ka-a2a-sub");
    const all = (await read.done) as { payload?: { $case: string; value: { status?: { state: number } } } }[];
    expect(all.at(-1)?.payload).toMatchObject({ $case: "statusUpdate", value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    tap.close();
  });
});
