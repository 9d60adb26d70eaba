// A small HTTP server on 127.0.0.1 that speaks OpenAI's Chat Completions API as the real one does,
// for tests of the openai provider through the official SDK. Runs in Node (vitest globalSetup).
//
//   POST /v1/chat/completions   streaming (SSE chunks, `data: [DONE]`) answers only, the real
//                               API's checks (400, request.ts), auth (401), scripted failures,
//                               the context window (400 context_length_exceeded) and automatic
//                               prefix caching (prompt-cache.ts) behind the usage figures
//   POST /__control/script      { model, turns: FakeTurn[] } the answers for that model
//   POST /__control/config      { model, contextWindow?, imageTokens? }
//   POST /__control/clock       { model, advanceMs } moves that model's cache clock
//   POST /__control/reset       { model } forgets the model's script, requests, cache and clock
//   GET  /__control/requests?model=<m>   every request that model received (RecordedRequest[])
//   GET  /__control/wait?model=<m>&requests=<n>&aborted=<n>   the same, once that model received at
//                               least n requests (default 1) and at least n of them were aborted by
//                               the client (default 0): a test waits on this instead of polling.
//                               Gives up after 20 s (408), so a test fails rather than hangs.
//   GET  /__control/cache?model=<m>      { entries } live cache entries of that model
//
// Everything is keyed by the request's `model`, so test files that run at once never meet: each
// test uses a model name of its own. The answer to a request is the turn whose index is the number
// of assistant messages in it (turnIndex), so a replayed or resumed step gets the same answer; a
// turn's `failures` are served first, one per attempt. Auth: Authorization: Bearer <any key but
// "bad-key" or one starting "sk-bad-">.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { changes } from "../e2e/support/changes";
import { header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { waitForRequests } from "../e2e/support/requests-wait";
import { answerChunks, type Chunk } from "./answer";
import { isSummaryRequest, summaryAnswer, turnIndex } from "./compaction";
import { PromptCache, promptUnits } from "./prompt-cache";
import { validateRequest, type ApiError } from "./request";
import type { FakeConfig, FakeFailure, FakeTurn, RecordedRequest } from "./types";

export type FakeOpenAI = {
  url: string;
  requests(model: string): RecordedRequest[];
  script(model: string, turns: FakeTurn[]): void;
  configure(model: string, config: FakeConfig): void;
  reset(model: string): void;
  close(): Promise<void>;
};

type ModelState = { turns: FakeTurn[]; attempts: Map<number, number>; requests: RecordedRequest[]; clockOffsetMs: number; config: FakeConfig };

/** A 512×512 image at detail "high": 85 + 4 × 170 tokens. */
const DEFAULT_IMAGE_TOKENS = 765;

function errorBody(error: Omit<ApiError, "status">) {
  return { error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null } };
}

const sse = (data: unknown): string => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

function isStatusFailure(failure: FakeFailure): failure is Extract<FakeFailure, { status: number }> {
  return "status" in failure;
}

export async function startFakeOpenAI({ port = 0 }: { port?: number } = {}): Promise<FakeOpenAI> {
  const models = new Map<string, ModelState>();
  // Wakes the waiters of GET /__control/wait on every request and every abort.
  const requestsChanged = changes();
  let counter = 0;
  const stateOf = (model: string): ModelState => {
    let state = models.get(model);
    if (state === undefined) models.set(model, (state = { turns: [], attempts: new Map(), requests: [], clockOffsetMs: 0, config: {} }));
    return state;
  };
  const cache = new PromptCache({ now: (model) => Date.now() + stateOf(model).clockOffsetMs });

  async function answer(request: IncomingMessage, response: ServerResponse, raw: string): Promise<void> {
    const id = `fake${++counter}`;
    const requestId = `req_${id}`;
    let body: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(raw) as unknown;
      body = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const model = typeof body?.model === "string" ? body.model : "(none)";
    const state = stateOf(model);
    const record: RecordedRequest = {
      raw,
      body,
      path: request.url ?? "",
      outcome: "ok",
      aborted: false,
      arrivedAt: Date.now(),
      headers: Object.fromEntries(
        ["authorization", "content-type", "x-stainless-retry-count", "openai-organization", "openai-project"].flatMap((name) => {
          const value = header(request, name);
          return value === undefined ? [] : [[name, value]];
        }),
      ),
    };
    state.requests.push(record);
    requestsChanged.changed();
    response.on("finish", () => (record.endedAt = Date.now()));
    let closed = false;
    const gone = new Promise<void>((resolve) =>
      response.on("close", () => {
        closed = true;
        if (!response.writableEnded) record.aborted = true;
        requestsChanged.changed();
        resolve();
      }),
    );
    const fail = (error: ApiError, headers: Record<string, string> = {}) => {
      record.outcome = `error ${error.status}`;
      sendJson(response, error.status, errorBody(error), { "x-request-id": requestId, ...headers });
    };
    const wait = async (ms: number) => {
      if (ms <= 0 || closed) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    };

    const key = header(request, "authorization")?.replace(/^Bearer\s+/i, "");
    if (key === undefined || key.length === 0) {
      return fail({ status: 401, type: "invalid_request_error", message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.", code: null });
    }
    // OpenAI's 401 quotes the key it was sent, masked but for its first and last characters.
    if (key === "bad-key" || key.startsWith("sk-bad-")) {
      const masked = `${key.slice(0, 7)}${"*".repeat(Math.max(0, key.length - 11))}${key.slice(-4)}`;
      return fail({ status: 401, type: "invalid_request_error", message: `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`, code: "invalid_api_key" });
    }
    const invalid = validateRequest(body);
    if (invalid !== undefined) return fail(invalid);
    if (body!.stream !== true) return fail({ status: 400, type: "invalid_request_error", message: "The fake answers streamed requests only (stream: true).", param: "stream" });
    const units = promptUnits(body!, state.config.imageTokens ?? DEFAULT_IMAGE_TOKENS);
    const promptTokens = units.reduce((sum, unit) => sum + unit.tokens, 0);
    const window = state.config.contextWindow;
    if (window !== undefined && promptTokens > window) {
      return fail({
        status: 400,
        type: "invalid_request_error",
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
        param: "messages",
        code: "context_length_exceeded",
      });
    }

    const summarizing = isSummaryRequest(body!);
    const index = turnIndex(body!);
    const turn: FakeTurn = summarizing ? summaryAnswer(body!) : (state.turns[index] ?? { text: `(fake) The script of ${model} has no turn ${index}.` });
    const attempt = summarizing ? 0 : (state.attempts.get(index) ?? 0);
    if (!summarizing) state.attempts.set(index, attempt + 1);
    const failure = summarizing ? undefined : turn.failures?.[attempt];
    if (failure !== undefined && isStatusFailure(failure)) {
      const headers: Record<string, string> = {};
      if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
      if (failure.retryAfterMs !== undefined) headers["retry-after-ms"] = failure.retryAfterMs;
      if (failure.shouldRetry !== undefined) headers["x-should-retry"] = String(failure.shouldRetry);
      return fail({ status: failure.status, type: failure.type, message: failure.message, code: failure.code ?? null }, headers);
    }
    if (failure !== undefined && "reset" in failure) {
      record.outcome = "reset";
      response.destroy();
      return;
    }

    // The prompt is read from and written to the cache once the answer begins.
    const prompt = cache.apply(model, units);
    const streamOptions = body!.stream_options as { include_usage?: unknown } | undefined;
    const chunks: Chunk[] = answerChunks(turn, model, id, prompt, streamOptions?.include_usage === true);
    const usage = chunks.at(-1)?.usage as { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number } } | undefined;
    if (usage) record.usage = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cached_tokens: usage.prompt_tokens_details.cached_tokens };
    await wait(turn.delayMs ?? 0);
    if (closed) return;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": requestId });
    for (const [i, chunk] of chunks.entries()) {
      if (closed) return;
      if (failure !== undefined && "streamError" in failure && i === (failure.afterChunks ?? 3)) {
        record.outcome = "stream-error";
        response.write(sse(errorBody({ ...failure.streamError, param: null, code: null })));
        response.end();
        return;
      }
      if (failure !== undefined && "cut" in failure && i === failure.cut.afterChunks) {
        record.outcome = "cut";
        // Let what was written reach the client first, so the cut is in the middle of the body.
        await new Promise<void>((resolve) => setTimeout(resolve, 20));
        response.destroy();
        return;
      }
      await new Promise<void>((resolve) => response.write(sse(chunk), () => resolve()));
      const delta = (chunk.choices as Array<{ delta?: { content?: string } }>)[0]?.delta;
      if (turn.hang === true && typeof delta?.content === "string" && delta.content.length > 0) {
        // Held open until the client goes away (or a minute passes).
        await wait(60_000);
        if (closed) return;
      }
      await wait(turn.eventDelayMs ?? 0);
    }
    response.end(sse("[DONE]"));
  }

  function control(route: string, url: URL, raw: string, response: ServerResponse): void {
    const input = (raw.length > 0 ? JSON.parse(raw) : {}) as { model?: string; turns?: FakeTurn[]; advanceMs?: number } & FakeConfig;
    const model = input.model ?? url.searchParams.get("model") ?? "";
    const state = stateOf(model);
    switch (route) {
      case "POST /__control/script":
        state.turns = input.turns ?? [];
        state.attempts.clear();
        return sendJson(response, 200, { ok: true });
      case "POST /__control/config":
        if (input.contextWindow !== undefined) state.config.contextWindow = input.contextWindow;
        if (input.imageTokens !== undefined) state.config.imageTokens = input.imageTokens;
        return sendJson(response, 200, { ok: true });
      case "POST /__control/clock":
        state.clockOffsetMs += input.advanceMs ?? 0;
        return sendJson(response, 200, { ok: true });
      case "POST /__control/reset":
        models.delete(model);
        cache.clear(model);
        return sendJson(response, 200, { ok: true });
      case "GET /__control/requests":
        return sendJson(response, 200, state.requests);
      case "GET /__control/wait":
        return waitForRequests(url, model, () => state.requests, requestsChanged, (status, value) => sendJson(response, status, value));
      case "GET /__control/cache":
        return sendJson(response, 200, { entries: cache.size(model) });
      default:
        return sendJson(response, 404, { error: `no route ${route}` });
    }
  }

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const raw = await readBody(request);
      const route = `${request.method} ${url.pathname}`;
      if (route === "POST /v1/chat/completions") return answer(request, response, raw);
      if (url.pathname.startsWith("/__control/")) return control(route, url, raw, response);
      sendJson(response, 404, errorBody({ type: "invalid_request_error", message: `Invalid URL (${route})`, code: "unknown_url" }));
    })().catch((error: unknown) => {
      if (!response.writableEnded) sendJson(response, 500, errorBody({ type: "server_error", message: `fake server: ${String(error)}` }));
    });
  });

  const listening = await listen(server, port);

  return {
    url: `http://127.0.0.1:${listening}/v1`,
    requests: (model) => stateOf(model).requests,
    script: (model, turns) => {
      const state = stateOf(model);
      state.turns = turns;
      state.attempts.clear();
    },
    configure: (model, config) => Object.assign(stateOf(model).config, config),
    reset: (model) => {
      models.delete(model);
      cache.clear(model);
    },
    close: () => shut(server),
  };
}
