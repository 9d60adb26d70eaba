// A small HTTP server on 127.0.0.1 that speaks Anthropic's Messages API as the real one does, for
// tests of the anthropic provider through the official SDK. Runs in Node (vitest globalSetup).
//
//   POST /v1/messages           streaming (SSE) and non-streaming answers, real event sequence,
//                               the real API's checks (400), auth (401), scripted failures, and a
//                               prompt-cache simulator (prompt-cache.ts) behind the usage figures
//   /__control/*                the control routes both fakes share (test/e2e/support/fake-vendor.ts:
//                               script, clock, reset, requests, wait, cache); config takes
//                               { model, minCacheTokens?, imageTokens?, contextWindow? }
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
import { control, isStatusFailure, jsonObject, recordExchange, retryHeaders, streamFrames, vendorModels, type StreamBreak } from "../e2e/support/fake-vendor";
import { header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { answerEvents, answerMessage, compactionEvents, serverToolId, serverUseOf, type AnswerContainer, type PromptUsage, type WireEvent } from "./answer";
import { compactionAsked, isSummaryRequest, summaryAnswer, turnIndex } from "./compaction";
import { PromptCache } from "./prompt-cache";
import { cacheBlocks, validateRequest, type ApiError } from "./request";
import { blockKey, CONTAINER_LIFETIME_MS, neededTool, offeredServerTools, serverBlocks } from "./server-tools";
import type { FakeConfig, FakeTurn, RecordedRequest, RecordedUsage } from "./types";

/** The server as Node code (the e2e tests, the benchmarks) holds it; the workerd tests use /__control/*. */
export type FakeAnthropic = {
  url: string;
  requests(model: string): RecordedRequest[];
  script(model: string, turns: FakeTurn[]): void;
  close(): Promise<void>;
};

/** What this fake keeps of a model beside the shared state (test/e2e/support/fake-vendor.ts). */
type ServerToolState = {
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

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const models = vendorModels<FakeTurn, FakeConfig, RecordedRequest, ServerToolState>(
    () => ({ issued: new Map(), containers: new Map(), pausedEnds: new Set() }),
    (model) => cache.clear(model),
  );
  const { stateOf } = models;
  let counter = 0;

  const minTokens = (model: string) =>
    stateOf(model).config.minCacheTokens ?? MIN_CACHE_TOKENS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 1024;
  const cache = new PromptCache({ now: (model) => Date.now() + stateOf(model).clockOffsetMs, minTokens });

  async function answerMessages(request: IncomingMessage, response: ServerResponse, raw: string): Promise<void> {
    const id = ++counter;
    const requestId = `req_fake_${id}`;
    const body = jsonObject(raw);
    const model = typeof body?.model === "string" ? body.model : "(none)";
    const state = stateOf(model);
    const headerNames = ["authorization", "x-api-key", "anthropic-version", "content-type", "x-stainless-retry-count", "anthropic-beta"];
    const { record, exchange } = recordExchange<RecordedUsage>(request, response, raw, body, headerNames, state.requests, models.requestsChanged);
    const fail = (error: ApiError & { code?: string }, headers: Record<string, string> = {}) => {
      record.outcome = `error ${error.status}`;
      sendJson(response, error.status, errorBody(error, requestId), { "request-id": requestId, ...headers });
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
    // A summary call or a compaction is answered by the fake itself; the rest comes from the script.
    const scripted = !summarizing && !compacting;
    const turn: FakeTurn = summarizing ? summaryAnswer(body!) : (state.turns[index] ?? { text: `(fake) The script of ${model} has no turn ${index}.` });
    const attempt = scripted ? (state.attempts.get(index) ?? 0) : 0;
    if (scripted) state.attempts.set(index, attempt + 1);
    const failure = scripted ? turn.failures?.[attempt] : undefined;
    if (failure !== undefined && isStatusFailure(failure)) {
      return fail({ status: failure.status, type: failure.type, message: failure.message, ...(failure.code === undefined ? {} : { code: failure.code }) }, retryHeaders(failure));
    }
    if (failure !== undefined && "reset" in failure) {
      record.outcome = "reset";
      response.destroy();
      return;
    }
    const offered = offeredServerTools(body!.tools);
    const missing = (turn.serverTools ?? []).map(neededTool).find((name) => !offered.has(name));
    if (scripted && missing !== undefined) {
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
    // The answer names a container only when it runs code: the one the request named, or a new one.
    if (!(scripted && serverUseOf(turn, messageId).container)) container = undefined;
    else if (container === undefined) {
      const made = `container_fake_${id}`;
      state.containers.set(made, now + CONTAINER_LIFETIME_MS);
      container = { id: made, expires_at: new Date(now + CONTAINER_LIFETIME_MS).toISOString() };
    }
    // The cache is read and written once the answer begins, as the docs describe.
    const outcome = cache.apply(model, blocks);
    const prompt: PromptUsage = {
      input_tokens: outcome.input_tokens,
      cache_creation_input_tokens: outcome.cache_creation_input_tokens,
      cache_read_input_tokens: outcome.cache_read_input_tokens,
    };
    // Server blocks are issued once the answer begins: they may come back from here on.
    if (scripted) {
      (turn.serverTools ?? []).forEach((tool, i) => {
        const blocks = serverBlocks(tool, serverToolId(messageId, i));
        state.issued.set(`server_tool_use\u0000${String(blocks.use.id)}`, blockKey({ ...blocks.use, input: blocks.input }));
        state.issued.set(`${String(blocks.result.type)}\u0000${String(blocks.use.id)}`, blockKey(blocks.result));
      });
      const tools = turn.serverTools ?? [];
      if (turn.stopReason === "pause_turn" && tools.length > 0 && (turn.text ?? "") === "" && (turn.toolCalls ?? []).length === 0) state.pausedEnds.add(serverToolId(messageId, tools.length - 1));
    }
    await exchange.wait(turn.delayMs ?? 0);
    if (exchange.closed) return;

    if (body!.stream !== true) {
      const message = answerMessage(turn, model, messageId, prompt, container);
      record.usage = { ...prompt, output_tokens: message.usage.output_tokens };
      return sendJson(response, 200, message, { "request-id": requestId });
    }

    const events = compacting ? compactionEvents(model, messageId, prompt, `(fake summary through turn ${index}) The conversation so far, compacted.`) : answerEvents(turn, model, messageId, prompt, container);
    const last = events.findLast((event) => event.type === "message_delta");
    if (last?.type === "message_delta") record.usage = { ...prompt, output_tokens: last.usage.output_tokens };
    const breaks: StreamBreak | undefined =
      failure !== undefined && "streamError" in failure
        ? { at: failure.afterEvents ?? 3, errorFrame: sse({ type: "error", error: failure.streamError }) }
        : failure !== undefined && "cut" in failure
          ? { at: failure.cut.afterEvents, cut: true }
          : undefined;
    await streamFrames(response, exchange, record, {
      headers: { "request-id": requestId },
      frames: events.map(sse),
      eventDelayMs: turn.eventDelayMs ?? 0,
      holdsAfter: (i) => (turn.hang === true || (failure !== undefined && "hang" in failure)) && events[i]?.type === "content_block_delta",
      breaks,
    });
  }

  const controlOptions = { configKeys: ["minCacheTokens", "imageTokens", "contextWindow"] satisfies Array<keyof FakeConfig>, cacheEntries: (model: string) => cache.size(model) };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const raw = await readBody(request);
      const route = `${request.method} ${url.pathname}`;
      if (route === "POST /v1/messages") return answerMessages(request, response, raw);
      if (url.pathname.startsWith("/__control/")) return control(models, controlOptions, route, url, raw, response);
      sendJson(response, 404, errorBody({ type: "not_found_error", message: `Not found: ${route}` }, "req_fake_404"));
    })().catch((error: unknown) => {
      if (!response.writableEnded) sendJson(response, 500, errorBody({ type: "api_error", message: `fake server: ${String(error)}` }, "req_fake_500"));
    });
  });

  const port = await listen(server);

  return {
    url: `http://127.0.0.1:${port}`,
    requests: (model) => stateOf(model).requests,
    script: models.script,
    close: () => shut(server),
  };
}
