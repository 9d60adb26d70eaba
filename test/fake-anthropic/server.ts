// A small HTTP server on 127.0.0.1 that speaks Anthropic's Messages API as the real one does, for
// tests of the anthropic provider through the official SDK. Runs in Node (vitest globalSetup).
//
//   POST /v1/messages           streaming (SSE) and non-streaming answers, real event sequence,
//                               the real API's checks (400), auth (401), scripted failures, and a
//                               prompt-cache simulator (prompt-cache.ts) behind the usage figures
//   POST /__control/script      { model, turns: FakeTurn[] } the answers for that model
//   POST /__control/config      { model, minCacheTokens?, imageTokens?, contextWindow? }
//   POST /__control/clock       { model, advanceMs } moves that model's cache clock
//   POST /__control/reset       { model } forgets the model's script, requests, cache and clock
//   GET  /__control/requests?model=<m>   every request that model received (RecordedRequest[])
//   GET  /__control/wait?model=<m>&requests=<n>&aborted=<n>   the same, once that model received at
//                               least n requests (default 1) and at least n of them were aborted by
//                               the client (default 0): a test waits on this instead of polling.
//                               Gives up after 20 s (408), so a test fails rather than hangs.
//   GET  /__control/cache?model=<m>      { entries } live cache entries of that model
//
// Server tools (a turn's `serverTools`): the answer carries their server_tool_use and result
// blocks, their usage (server_tool_use) and, for code execution, a container (a new one, or the
// one the request names: it must be one this fake made for that model and not expired, else 400).
// The request must offer each tool a turn uses. Every server block sent back must be one this fake
// sent, unchanged. Native client tool types are checked in `tools`, and toolset_name on tool_use
// and tool_result blocks (see server-tools.ts).
//
// Everything is keyed by the request's `model`, so test files that run at once never meet: each
// test uses a model name of its own. The answer to a request is the turn whose index is the number
// of assistant messages in it, so a replayed or resumed step gets the same answer; a turn's
// `failures` are served first, one per attempt. Auth: any key but "bad-key", by x-api-key or
// Authorization: Bearer (the SDK sends the latter).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { changes } from "../e2e/support/changes";
import { header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { waitForRequests } from "../e2e/support/requests-wait";
import { answerEvents, answerMessage, compactionEvents, serverToolId, serverUseOf, type AnswerContainer, type PromptUsage, type WireEvent } from "./answer";
import { compactionAsked, isSummaryRequest, summaryAnswer, turnIndex } from "./compaction";
import { PromptCache } from "./prompt-cache";
import { cacheBlocks, validateRequest, type ApiError } from "./request";
import { blockKey, CONTAINER_LIFETIME_MS, neededTool, offeredServerTools, serverBlocks } from "./server-tools";
import type { FakeConfig, FakeFailure, FakeTurn, RecordedRequest } from "./types";

export type FakeAnthropic = {
  url: string;
  requests(model: string): RecordedRequest[];
  script(model: string, turns: FakeTurn[]): void;
  configure(model: string, config: FakeConfig): void;
  advanceClock(model: string, ms: number): void;
  reset(model: string): void;
  cache: PromptCache;
  close(): Promise<void>;
};

type ModelState = {
  turns: FakeTurn[];
  attempts: Map<number, number>;
  requests: RecordedRequest[];
  clockOffsetMs: number;
  config: FakeConfig;
  /** Server tool blocks sent, by type and id: they must come back unchanged. */
  issued: Map<string, string>;
  /** Containers made, by id: when each expires (on this model's clock). */
  containers: Map<string, number>;
  /** The tool_use_id of the last block of each answer that paused (pause_turn): the next answer is merged after it. */
  pausedEnds: Set<string>;
};

const DEFAULT_IMAGE_TOKENS = 1_500;

/** Minimum cacheable prompt lengths from Anthropic's prompt-caching page; 1,024 for the rest. */
const MIN_CACHE_TOKENS: Array<[string, number]> = [
  ["claude-opus-4-6", 4096],
  ["claude-opus-4-5", 4096],
  ["claude-haiku-4-5", 4096],
  ["claude-3-5-haiku", 2048],
  ["claude-3-haiku", 2048],
];

function errorBody(error: { type: string; message: string; code?: string }, requestId: string) {
  const inner: Record<string, unknown> = { type: error.type, message: error.message };
  if (error.code !== undefined) inner.details = { error_code: error.code };
  return { type: "error", error: inner, request_id: requestId };
}

function sse(event: WireEvent | { type: "error"; error: { type: string; message: string } }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function isStatusFailure(failure: FakeFailure): failure is Extract<FakeFailure, { status: number }> {
  return "status" in failure;
}

export async function startFakeAnthropic({ port = 0 }: { port?: number } = {}): Promise<FakeAnthropic> {
  const models = new Map<string, ModelState>();
  // Wakes the waiters of GET /__control/wait on every request and every abort.
  const requestsChanged = changes();
  let counter = 0;

  const stateOf = (model: string): ModelState => {
    let state = models.get(model);
    if (state === undefined) {
      state = { turns: [], attempts: new Map(), requests: [], clockOffsetMs: 0, config: {}, issued: new Map(), containers: new Map(), pausedEnds: new Set() };
      models.set(model, state);
    }
    return state;
  };
  const minTokens = (model: string) =>
    stateOf(model).config.minCacheTokens ?? MIN_CACHE_TOKENS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 1024;
  const cache = new PromptCache({ now: (model) => Date.now() + stateOf(model).clockOffsetMs, minTokens });

  async function answerMessages(request: IncomingMessage, response: ServerResponse, raw: string): Promise<void> {
    const id = ++counter;
    const requestId = `req_fake_${id}`;
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
        ["authorization", "x-api-key", "anthropic-version", "content-type", "x-stainless-retry-count", "anthropic-beta"].flatMap((name) => {
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
    const fail = (error: ApiError & { code?: string }, headers: Record<string, string> = {}) => {
      record.outcome = `error ${error.status}`;
      sendJson(response, error.status, errorBody(error, requestId), { "request-id": requestId, ...headers });
    };
    /** Waits `ms`, or less when the client goes away. */
    const wait = async (ms: number) => {
      if (ms <= 0 || closed) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    };

    const key = header(request, "x-api-key") ?? header(request, "authorization")?.replace(/^Bearer\s+/i, "");
    if (key === undefined || key.length === 0) return fail({ status: 401, type: "authentication_error", message: "x-api-key header is required" });
    if (key === "bad-key") return fail({ status: 401, type: "authentication_error", message: "invalid x-api-key" });
    if (header(request, "anthropic-version") === undefined) return fail({ status: 400, type: "invalid_request_error", message: "anthropic-version: header is required" });
    const betas = (header(request, "anthropic-beta") ?? "").split(",").map((beta) => beta.trim());
    const invalid = validateRequest(body, betas, state.issued);
    if (invalid !== undefined) return fail(invalid);
    const blocks = cacheBlocks(body!, state.config.imageTokens ?? DEFAULT_IMAGE_TOKENS);
    const promptTokens = blocks.reduce((sum, block) => sum + block.tokens, 0);
    const window = state.config.contextWindow;
    if (window !== undefined && promptTokens > window) {
      return fail({ status: 400, type: "invalid_request_error", message: `prompt is too long: ${promptTokens} tokens > ${window} maximum` });
    }

    // The answer to a request is the script's turn for the turns of the model it stands for (a compacted request sends fewer).
    const index = turnIndex(body!, state.pausedEnds);
    const summarizing = isSummaryRequest(body!);
    const compacting = !summarizing && compactionAsked(body!, promptTokens);
    const turn: FakeTurn = summarizing ? summaryAnswer(body!) : (state.turns[index] ?? { text: `(fake) The script of ${model} has no turn ${index}.` });
    const attempt = summarizing || compacting ? 0 : (state.attempts.get(index) ?? 0);
    if (!summarizing && !compacting) state.attempts.set(index, attempt + 1);
    const failure = summarizing || compacting ? undefined : turn.failures?.[attempt];
    if (failure !== undefined && isStatusFailure(failure)) {
      const headers: Record<string, string> = {};
      if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
      if (failure.retryAfterMs !== undefined) headers["retry-after-ms"] = failure.retryAfterMs;
      if (failure.shouldRetry !== undefined) headers["x-should-retry"] = String(failure.shouldRetry);
      return fail({ status: failure.status, type: failure.type, message: failure.message, ...(failure.code === undefined ? {} : { code: failure.code }) }, headers);
    }
    if (failure !== undefined && "reset" in failure) {
      record.outcome = "reset";
      response.destroy();
      return;
    }
    const offered = offeredServerTools(body!.tools);
    const missing = (turn.serverTools ?? []).map(neededTool).find((name) => !offered.has(name));
    if (!summarizing && !compacting && missing !== undefined) {
      return fail({ status: 400, type: "invalid_request_error", message: `(fake) turn ${index} uses ${missing}, which the request's tools do not offer` });
    }
    const messageId = `msg_fake_${id}`;
    let container: AnswerContainer | undefined;
    const now = Date.now() + state.clockOffsetMs;
    const asked = typeof body!.container === "string" ? body!.container : ((body!.container as { id?: string } | null | undefined)?.id ?? undefined);
    if (asked !== undefined) {
      // A container named by the request must be one this fake made, not expired, whatever the turn does.
      const expires = state.containers.get(asked);
      if (expires === undefined) return fail({ status: 400, type: "invalid_request_error", message: `container: Container ${asked} not found` });
      if (expires <= now) return fail({ status: 400, type: "invalid_request_error", message: `container: Container ${asked} has expired` });
      container = { id: asked, expires_at: new Date(expires).toISOString() };
    }
    if (!summarizing && !compacting && serverUseOf(turn, messageId).container && container === undefined) {
      const made = `container_fake_${id}`;
      state.containers.set(made, now + CONTAINER_LIFETIME_MS);
      container = { id: made, expires_at: new Date(now + CONTAINER_LIFETIME_MS).toISOString() };
    }
    // The answer names its container only when it ran code.
    if (summarizing || compacting || !serverUseOf(turn, messageId).container) container = undefined;
    // The cache is read and written once the answer begins, as the docs describe.
    const outcome = cache.apply(model, blocks);
    const prompt: PromptUsage = {
      input_tokens: outcome.input_tokens,
      cache_creation_input_tokens: outcome.cache_creation_input_tokens,
      cache_read_input_tokens: outcome.cache_read_input_tokens,
    };
    // Server blocks are issued once the answer begins: they may come back from here on.
    if (!summarizing && !compacting) {
      (turn.serverTools ?? []).forEach((tool, i) => {
        const blocks = serverBlocks(tool, serverToolId(messageId, i));
        state.issued.set(`server_tool_use\u0000${String(blocks.use.id)}`, blockKey({ ...blocks.use, input: blocks.input }));
        state.issued.set(`${String(blocks.result.type)}\u0000${String(blocks.use.id)}`, blockKey(blocks.result));
      });
      const tools = turn.serverTools ?? [];
      if (turn.stopReason === "pause_turn" && tools.length > 0 && (turn.text ?? "") === "" && (turn.toolCalls ?? []).length === 0) state.pausedEnds.add(serverToolId(messageId, tools.length - 1));
    }
    await wait(turn.delayMs ?? 0);
    if (closed) return;

    if (body!.stream !== true) {
      const message = answerMessage(turn, model, messageId, prompt, container);
      record.usage = { ...prompt, output_tokens: message.usage.output_tokens };
      return sendJson(response, 200, message, { "request-id": requestId });
    }

    const events = compacting ? compactionEvents(model, messageId, prompt, `(fake summary through turn ${index}) The conversation so far, compacted.`) : answerEvents(turn, model, messageId, prompt, container);
    const last = events.findLast((event) => event.type === "message_delta");
    if (last?.type === "message_delta") record.usage = { ...prompt, output_tokens: last.usage.output_tokens };
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": requestId });
    for (const [i, event] of events.entries()) {
      if (closed) return;
      if (failure !== undefined && "streamError" in failure && i === (failure.afterEvents ?? 3)) {
        record.outcome = "stream-error";
        response.write(sse({ type: "error", error: failure.streamError }));
        response.end();
        return;
      }
      if (failure !== undefined && "cut" in failure && i === failure.cut.afterEvents) {
        record.outcome = "cut";
        // Let what was written reach the client first, so the cut is in the middle of the body.
        await new Promise<void>((resolve) => setTimeout(resolve, 20));
        response.destroy();
        return;
      }
      await new Promise<void>((resolve) => response.write(sse(event), () => resolve()));
      if (turn.hang === true && event.type === "content_block_delta") {
        // Held open until the client goes away (or a minute passes).
        await wait(60_000);
        if (closed) return;
      }
      await wait(turn.eventDelayMs ?? 0);
    }
    response.end();
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
        if (input.minCacheTokens !== undefined) state.config.minCacheTokens = input.minCacheTokens;
        if (input.imageTokens !== undefined) state.config.imageTokens = input.imageTokens;
        if (input.contextWindow !== undefined) state.config.contextWindow = input.contextWindow;
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
      if (route === "POST /v1/messages") return answerMessages(request, response, raw);
      if (url.pathname.startsWith("/__control/")) return control(route, url, raw, response);
      sendJson(response, 404, errorBody({ type: "not_found_error", message: `Not found: ${route}` }, "req_fake_404"));
    })().catch((error: unknown) => {
      if (!response.writableEnded) sendJson(response, 500, errorBody({ type: "api_error", message: `fake server: ${String(error)}` }, "req_fake_500"));
    });
  });

  const listening = await listen(server, port);

  return {
    url: `http://127.0.0.1:${listening}`,
    requests: (model) => stateOf(model).requests,
    script: (model, turns) => {
      const state = stateOf(model);
      state.turns = turns;
      state.attempts.clear();
    },
    configure: (model, config) => Object.assign(stateOf(model).config, config),
    advanceClock: (model, ms) => {
      stateOf(model).clockOffsetMs += ms;
    },
    reset: (model) => {
      models.delete(model);
      cache.clear(model);
    },
    cache,
    close: () => shut(server),
  };
}
