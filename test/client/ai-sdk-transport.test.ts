// @ratchet/client/ai-sdk's transport as useChat drives it: the AI SDK's own DefaultChatTransport,
// pointed at the chat endpoint with the token, sending only the last message, waiting out a
// service that does not answer a reconnect yet, and cancelling the run through the API.
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTransport, isDisconnect } from "../../src/client/ai-sdk";
import { createClient } from "../../src/client";
import { drive, stubFor } from "../helpers/runs";
import { BASE } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";
import { driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";
import { testChat, textOf, type ChatVersion } from "../helpers/ai-chat";

type Sent = { url: string; method: string; headers: Headers; body: string | undefined };

/** A fetch that records each request and answers from `answer` (which may throw, as a lost network does). */
function recording(answer: (sent: Sent, index: number) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = { url: String(input), method: init?.method ?? "GET", headers: new Headers(init?.headers), body: typeof init?.body === "string" ? init.body : undefined };
    sent.push(request);
    return answer(request, sent.length - 1);
  };
  return { fetch, sent };
}

function uiStream(chunks: unknown[]): Response {
  const body = [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"].join("");
  return new Response(body, { headers: { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" } });
}

async function read(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

describe("chatTransport", () => {
  it("POSTs to /v1/ai-sdk/{version}/chat with the token and only the last message, and reads the stream", async () => {
    const { fetch, sent } = recording(() => uiStream([{ type: "start", messageId: "m1" }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Hi." }, { type: "text-end", id: "t" }, { type: "finish" }]));
    const transport = chatTransport({ baseUrl: `${BASE}/`, token: "rt_abc", version: "v7", fetch });
    const stream = await transport.sendMessages({ chatId: "run_1", messages: [user("u1", "first"), user("u2", "second")], trigger: "submit-message", messageId: undefined, abortSignal: undefined, body: { extra: 1 } });
    expect((await read(stream)).map((chunk) => chunk.type)).toEqual(["start", "text-start", "text-delta", "text-end", "finish"]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: `${BASE}/v1/ai-sdk/v7/chat`, method: "POST" });
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer rt_abc");
    expect(JSON.parse(sent[0]!.body!)).toEqual({ extra: 1, id: "run_1", messages: [user("u2", "second")], trigger: "submit-message" });
  });

  it("asks a token function before each request, and names each version's endpoint", async () => {
    let issued = 0;
    const { fetch, sent } = recording(() => new Response(null, { status: 204 }));
    for (const version of ["v5", "v6", "v7"] as const) {
      const transport = chatTransport({ baseUrl: BASE, token: () => `ut_${++issued}`, version, fetch });
      expect(await transport.reconnectToStream({ chatId: "run_2" })).toBeNull();
    }
    expect(sent.map((request) => [request.url, request.method, request.headers.get("authorization")])).toEqual([
      [`${BASE}/v1/ai-sdk/v5/chat/run_2/stream`, "GET", "Bearer ut_1"],
      [`${BASE}/v1/ai-sdk/v6/chat/run_2/stream`, "GET", "Bearer ut_2"],
      [`${BASE}/v1/ai-sdk/v7/chat/run_2/stream`, "GET", "Bearer ut_3"],
    ]);
    // @ts-expect-error: only v5, v6 and v7 exist
    expect(() => chatTransport({ baseUrl: BASE, token: "t", version: "v8" })).toThrow(/version must be "v5", "v6" or "v7"/);
  });

  it("a reconnect that finds no service tries again until it connects; a POST is never sent twice", async () => {
    const down = (sent: Sent, index: number) => {
      if (sent.method === "POST" || index < 3) throw new TypeError("Failed to fetch");
      return uiStream([{ type: "start", messageId: "m1" }, { type: "finish" }]);
    };
    const { fetch, sent } = recording(down);
    const transport = chatTransport({ baseUrl: BASE, token: "t", version: "v7", fetch, reconnect: { minDelayMs: 0, maxDelayMs: 0 } });
    const resumed = await transport.reconnectToStream({ chatId: "run_3" });
    expect((await read(resumed!)).map((chunk) => chunk.type)).toEqual(["start", "finish"]);
    expect(sent.map((request) => request.method)).toEqual(["GET", "GET", "GET", "GET"]);

    const error = await transport.sendMessages({ chatId: "run_3", messages: [user("u", "hi")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }).catch((thrown: unknown) => thrown);
    expect(isDisconnect(error)).toBe(true);
    expect(sent.filter((request) => request.method === "POST")).toHaveLength(1);
  });

  it("a reconnect that waits for the service ends when the chat aborts it", async () => {
    const controller = new AbortController();
    const { fetch, sent } = recording((_sent, index) => {
      if (index === 2) controller.abort();
      throw new TypeError("Failed to fetch");
    });
    const transport = chatTransport({ baseUrl: BASE, token: "t", version: "v7", fetch, reconnect: { minDelayMs: 0, maxDelayMs: 0 } });
    await expect(transport.reconnectToStream({ chatId: "run_4", abortSignal: controller.signal })).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(3);
  });

  it("isDisconnect: every way a request fails or a stream is cut, in Node's, Chromium's, Firefox's and Safari's words, and nothing else", () => {
    const cuts = [
      "fetch failed", // Node: no connection
      "terminated", // Node: the body cut (the other side closed)
      "Failed to fetch", // Chromium: no connection
      "network error", // Chromium: the body cut
      "NetworkError when attempting to fetch resource.", // Firefox: no connection
      "Error in input stream", // Firefox: the body cut
      "Load failed", // Safari: no connection
      "The network connection was lost.", // Safari: the body cut
    ];
    expect(cuts.filter((words) => !isDisconnect(new TypeError(words)))).toEqual([]);
    expect([new Error("network error"), new TypeError("x is not a function"), "Failed to fetch", undefined].map(isDisconnect)).toEqual([false, false, false, false]);
  });

  it("cancelChat(chatId) cancels the run the chat follows through the chat's cancel route, with the transport's own token", async () => {
    const ratchet = createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: (url, init) => SELF.fetch(url, init) });
    const { run, token } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "?" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }] });
    await drive(stubFor(run.id));
    const { fetch, sent } = recording((request) => SELF.fetch(request.url, { method: request.method, headers: request.headers, body: request.body }));
    const transport = chatTransport({ baseUrl: BASE, token, version: "v7", fetch });
    expect(await transport.cancelChat(run.id)).toMatchObject({ id: run.id, status: "cancelled", stoppedBy: "cancel" });
    expect(sent.map((request) => [request.method, request.url, request.headers.get("authorization")])).toEqual([["POST", `${BASE}/v1/ai-sdk/v7/chat/${run.id}/cancel`, `Bearer ${token}`]]);
  });
});

/** SELF.fetch, with the first stream it answers cut as Node cuts one (TypeError "terminated") once it has carried `after`. */
function cutOnce(after: string) {
  let cut = false;
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await SELF.fetch(input instanceof Request ? input : String(input), init);
    if (cut || response.body === null || response.status !== 200) return response;
    cut = true;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (seen.includes(after)) {
          await reader.cancel();
          controller.error(new TypeError("terminated"));
          return;
        }
        const { value, done } = await reader.read();
        if (done) return controller.close();
        seen += decoder.decode(value, { stream: true });
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

describe.each(["v5", "v6", "v7"] as ChatVersion[])("the transport with ai %s's own chat", (version) => {
  it("a stream cut as Node cuts one (TypeError: terminated) is a disconnect the SDK keeps the message for; resumeStream brings it back", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Tell me." }], minAnswerChars: 0, script: [{ hold: "cut", streamBeforeHold: 8, chunk: 4, text: "The first part, then the rest." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "text" && frame.delta === "firs");
    const { chat, finishes, nextFinish, nextResponse, statuses } = testChat({ version, runId: run.id, token, transport: "ratchet", fetch: cutOnce("firs") });
    const cut = nextFinish();
    void chat.resumeStream();
    await nextResponse();
    await cut;
    expect(chat.status).toBe("error");
    expect(isDisconnect(chat.error)).toBe(true);
    expect(finishes).toEqual([{ isAbort: false, isDisconnect: true, isError: true }]);
    const resumed = chat.resumeStream();
    // The resume has its answer (the step so far): the held call goes on.
    await nextResponse();
    await releaseHold(run.id, "cut");
    await alarm;
    await resumed;
    watcher.close();
    expect(statuses).toEqual([200, 200]);
    expect(chat.status).toBe("ready");
    expect(chat.messages.map((message) => message.id)).toEqual([`${run.id}-1`]);
    expect(textOf(chat.messages[0])).toBe("The first part, then the rest.");
  });

  it("a refusal reaches the chat as the API's message, not its JSON", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Go." }], script: [{ error: "overloaded" }] });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).status).toBe("failed");
    const { chat, errors } = testChat({ version, runId: run.id, token, transport: "ratchet" });
    await chat.sendMessage({ text: "Again?" });
    expect(chat.status).toBe("error");
    expect(errors.map((error) => error.message)).toEqual([`Only a running, finished or cancelled run can take a new message; this one is failed. Retry it first (POST /v1/runs/${run.id}/retry).`]);
  });
});
