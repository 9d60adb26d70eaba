// A small HTTP server on 127.0.0.1 that speaks OpenAI's Chat Completions API as the real one does,
// for tests of the openai provider through the official SDK. Runs in Node (vitest globalSetup).
//
//   POST /v1/chat/completions   streaming (SSE chunks, `data: [DONE]`) answers only, the real
//                               API's checks (400, request.ts), auth (401), scripted failures,
//                               the context window (400 context_length_exceeded) and automatic
//                               prefix caching (prompt-cache.ts) behind the usage figures
//   /__control/*                the control routes both fakes share (test/e2e/support/fake-vendor.ts:
//                               script, clock, reset, requests, wait, cache); config takes
//                               { model, contextWindow?, imageTokens?, ignoreToolChoice? }
//
// Everything is keyed by the request's `model`, so test files that run at once never meet: each
// test uses a model name of its own. The answer to a request is the turn whose index is the number
// of assistant messages in it (turnIndex), so a replayed or resumed step gets the same answer; a
// turn's `failures` are served first, one per attempt. A request with tool_choice "none" gets the
// turn's text and none of its tool calls, as from the real API, unless the model is configured to
// ignore tool_choice (ignoreToolChoice), as some compatible servers do. Auth: Authorization: Bearer <any key but
// "bad-key" or one starting "sk-bad-">.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { control, isStatusFailure, jsonObject, recordExchange, retryHeaders, streamFrames, vendorModels, type StreamBreak } from "../e2e/support/fake-vendor";
import { header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { answerChunks, type Chunk } from "./answer";
import { isSummaryRequest, summaryAnswer, turnIndex } from "./compaction";
import { PromptCache, promptUnits } from "./prompt-cache";
import { validateRequest, type ApiError } from "./request";
import type { FakeConfig, FakeTurn, RecordedRequest, RecordedUsage } from "./types";

/** The server as Node code (the e2e tests) holds it; the workerd tests use /__control/*. */
export type FakeOpenAI = {
  url: string;
  requests(model: string): RecordedRequest[];
  script(model: string, turns: FakeTurn[]): void;
  close(): Promise<void>;
};

/** A 512×512 image at detail "high": 85 + 4 × 170 tokens. */
const DEFAULT_IMAGE_TOKENS = 765;

function errorBody(error: Omit<ApiError, "status">) {
  return { error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null } };
}

const sse = (data: unknown): string => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** A turn as the real API answers a request with tool_choice "none": no tool call. */
function withoutToolCalls(turn: FakeTurn): FakeTurn {
  const { toolCalls: _dropped, cutLastToolCall: _cut, ...rest } = turn;
  return rest;
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const models = vendorModels<FakeTurn, FakeConfig, RecordedRequest, object>(
    () => ({}),
    (model) => cache.clear(model),
  );
  const { stateOf } = models;
  let counter = 0;
  const cache = new PromptCache({ now: (model) => Date.now() + stateOf(model).clockOffsetMs });

  async function answer(request: IncomingMessage, response: ServerResponse, raw: string): Promise<void> {
    const id = `fake${++counter}`;
    const requestId = `req_${id}`;
    const body = jsonObject(raw);
    const model = typeof body?.model === "string" ? body.model : "(none)";
    const state = stateOf(model);
    const headerNames = ["authorization", "content-type", "x-stainless-retry-count", "openai-organization", "openai-project"];
    const { record, exchange } = recordExchange<RecordedUsage>(request, response, raw, body, headerNames, state.requests, models.requestsChanged);
    const fail = (error: ApiError, headers: Record<string, string> = {}) => {
      record.outcome = `error ${error.status}`;
      sendJson(response, error.status, errorBody(error), { "x-request-id": requestId, ...headers });
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
    const scripted: FakeTurn = summarizing ? summaryAnswer(body!) : (state.turns[index] ?? { text: `(fake) The script of ${model} has no turn ${index}.` });
    const turn = body!.tool_choice === "none" && state.config.ignoreToolChoice !== true ? withoutToolCalls(scripted) : scripted;
    const attempt = summarizing ? 0 : (state.attempts.get(index) ?? 0);
    if (!summarizing) state.attempts.set(index, attempt + 1);
    const failure = summarizing ? undefined : turn.failures?.[attempt];
    if (failure !== undefined && isStatusFailure(failure)) {
      return fail({ status: failure.status, type: failure.type, message: failure.message, code: failure.code ?? null }, retryHeaders(failure));
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
    await exchange.wait(turn.delayMs ?? 0);
    if (exchange.closed) return;
    const breaks: StreamBreak | undefined =
      failure !== undefined && "streamError" in failure
        ? { at: failure.afterChunks ?? 3, errorFrame: sse(errorBody({ ...failure.streamError, param: null, code: null })) }
        : failure !== undefined && "cut" in failure
          ? { at: failure.cut.afterChunks, cut: true }
          : undefined;
    const hasContent = (chunk: Chunk | undefined) => {
      const delta = (chunk?.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta;
      return typeof delta?.content === "string" && delta.content.length > 0;
    };
    await streamFrames(response, exchange, record, {
      headers: { "x-request-id": requestId },
      frames: chunks.map(sse),
      eventDelayMs: turn.eventDelayMs ?? 0,
      holdsAfter: (i) => (turn.hang === true || (failure !== undefined && "hang" in failure)) && hasContent(chunks[i]),
      breaks,
      tail: sse("[DONE]"),
    });
  }

  const controlOptions = { configKeys: ["contextWindow", "imageTokens", "ignoreToolChoice"] satisfies Array<keyof FakeConfig>, cacheEntries: (model: string) => cache.size(model) };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const raw = await readBody(request);
      const route = `${request.method} ${url.pathname}`;
      if (route === "POST /v1/chat/completions") return answer(request, response, raw);
      if (url.pathname.startsWith("/__control/")) return control(models, controlOptions, route, url, raw, response);
      sendJson(response, 404, errorBody({ type: "invalid_request_error", message: `Invalid URL (${route})`, code: "unknown_url" }));
    })().catch((error: unknown) => {
      if (!response.writableEnded) sendJson(response, 500, errorBody({ type: "server_error", message: `fake server: ${String(error)}` }));
    });
  });

  const port = await listen(server);

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: (model) => stateOf(model).requests,
    script: models.script,
    close: () => shut(server),
  };
}
