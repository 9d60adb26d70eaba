// What the fake vendor servers (test/fake-anthropic/, test/fake-openai/) share beside their wire
// protocols: the state each model name keeps (its script, attempts, recorded requests, cache clock
// and settings), the record of each request and how it ended, a scripted failure's retry headers,
// the pace and scripted breaks of a streamed answer, and the control routes under /__control/ that
// the workerd tests drive them with.
import type { IncomingMessage, ServerResponse } from "node:http";
import { changes, type Changes } from "./changes";
import { answerWhen, header, sendJson } from "./http-server";

/** What every fake records of a request; each adds the usage figures of its own API (its types.ts). */
export type RecordedBase = {
  /** The body exactly as it arrived. */
  raw: string;
  body: Record<string, unknown> | undefined;
  headers: Record<string, string>;
  path: string;
  /** "ok", "error <status>", "stream-error", "cut" or "reset". */
  outcome: string;
  /** The client went away before the answer ended. */
  aborted: boolean;
  /** When the request arrived and when its answer was completely written (epoch ms; no endedAt: never). */
  arrivedAt: number;
  endedAt?: number;
};

export type ModelState<Turn, Config, Recorded> = { turns: Turn[]; attempts: Map<number, number>; requests: Recorded[]; clockOffsetMs: number; config: Config };

export type VendorModels<Turn, State> = {
  stateOf(model: string): State;
  /** Wakes the waiters of GET /__control/wait on every request and every abort. */
  requestsChanged: Changes;
  script(model: string, turns: Turn[]): void;
  reset(model: string): void;
};

/**
 * The fake's state by model name, so test files that run at once never meet. `extra` makes what a
 * fake keeps beside the shared state; `forget` drops what it keeps elsewhere (its prompt cache).
 */
export function vendorModels<Turn, Config extends object, Recorded extends RecordedBase, Extra extends object>(
  extra: () => Extra,
  forget: (model: string) => void,
): VendorModels<Turn, ModelState<Turn, Config, Recorded> & Extra> {
  type State = ModelState<Turn, Config, Recorded> & Extra;
  const models = new Map<string, State>();
  const stateOf = (model: string): State => {
    let state = models.get(model);
    if (state === undefined) {
      state = { turns: [], attempts: new Map(), requests: [], clockOffsetMs: 0, config: {} as Config, ...extra() };
      models.set(model, state);
    }
    return state;
  };
  return {
    stateOf,
    requestsChanged: changes(),
    script(model: string, turns: Turn[]): void {
      const state = stateOf(model);
      state.turns = turns;
      state.attempts.clear();
    },
    reset(model: string): void {
      models.delete(model);
      forget(model);
    },
  };
}

/** The request's body when it is a JSON object, else undefined (the fake's checks refuse it). */
export function jsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One request and its answer: the record kept of it, whether the client went away, and a wait the client's going cuts short. */
export type Exchange = { readonly closed: boolean; wait(ms: number): Promise<void> };

/**
 * Records a request as it arrives (with the `headerNames` the fake keeps), its end, and an abort
 * when the client goes away before the answer ended; waiters are woken on arrival and on close.
 */
export function recordExchange<Usage>(
  request: IncomingMessage,
  response: ServerResponse,
  raw: string,
  body: Record<string, unknown> | undefined,
  headerNames: string[],
  into: Array<RecordedBase & { usage?: Usage }>,
  requestsChanged: { changed(): void },
): { record: RecordedBase & { usage?: Usage }; exchange: Exchange } {
  const record: RecordedBase & { usage?: Usage } = {
    raw,
    body,
    path: request.url ?? "",
    outcome: "ok",
    aborted: false,
    arrivedAt: Date.now(),
    headers: Object.fromEntries(
      headerNames.flatMap((name) => {
        const value = header(request, name);
        return value === undefined ? [] : [[name, value]];
      }),
    ),
  };
  into.push(record);
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
  const exchange: Exchange = {
    get closed() {
      return closed;
    },
    async wait(ms) {
      if (ms <= 0 || closed) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
  };
  return { record, exchange };
}

/** A scripted HTTP error answer, with the retry headers both SDKs read; each fake adds its error body's fields. */
export type StatusFailure = { status: number; retryAfter?: string; retryAfterMs?: string; shouldRetry?: boolean };

export function isStatusFailure<F extends object>(failure: F): failure is Extract<F, { status: number }> {
  return "status" in failure;
}

/** The retry headers both SDKs read (retry-after, retry-after-ms, x-should-retry) of a scripted failure. */
export function retryHeaders(failure: StatusFailure): Record<string, string> {
  const headers: Record<string, string> = {};
  if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
  if (failure.retryAfterMs !== undefined) headers["retry-after-ms"] = failure.retryAfterMs;
  if (failure.shouldRetry !== undefined) headers["x-should-retry"] = String(failure.shouldRetry);
  return headers;
}

/**
 * The control routes, the same on both fakes:
 *
 *   POST /__control/script      { model, turns } the answers for that model
 *   POST /__control/config      { model, ...settings } (only the `configKeys` the fake has)
 *   POST /__control/clock       { model, advanceMs } moves that model's cache clock
 *   POST /__control/reset       { model } forgets the model's script, requests, cache and clock
 *   GET  /__control/requests?model=<m>   every request that model received
 *   GET  /__control/wait?model=<m>&requests=<n>&aborted=<n>   the same, once that model received
 *                               at least n requests (default 1) and at least n of them were aborted
 *                               by the client (default 0): a test waits on this instead of polling.
 *                               Gives up after 20 s (408), so a test fails rather than hangs.
 *   GET  /__control/cache?model=<m>      { entries } live cache entries of that model
 */
export function control<Turn, Config extends object>(
  models: VendorModels<Turn, ModelState<Turn, Config, RecordedBase>>,
  options: { configKeys: Array<keyof Config & string>; cacheEntries: (model: string) => number },
  route: string,
  url: URL,
  raw: string,
  response: ServerResponse,
): void {
  const input = (raw.length > 0 ? JSON.parse(raw) : {}) as { model?: string; turns?: Turn[]; advanceMs?: number } & Partial<Config>;
  const model = input.model ?? url.searchParams.get("model") ?? "";
  const state = models.stateOf(model);
  switch (route) {
    case "POST /__control/script":
      models.script(model, input.turns ?? []);
      return sendJson(response, 200, { ok: true });
    case "POST /__control/config":
      for (const key of options.configKeys) if (input[key] !== undefined) state.config[key] = input[key] as Config[typeof key];
      return sendJson(response, 200, { ok: true });
    case "POST /__control/clock":
      state.clockOffsetMs += input.advanceMs ?? 0;
      return sendJson(response, 200, { ok: true });
    case "POST /__control/reset":
      models.reset(model);
      return sendJson(response, 200, { ok: true });
    case "GET /__control/requests":
      return sendJson(response, 200, state.requests);
    case "GET /__control/wait": {
      const wanted = Number(url.searchParams.get("requests") ?? "1");
      const aborted = Number(url.searchParams.get("aborted") ?? "0");
      const abortedNow = () => state.requests.filter((record) => record.aborted).length;
      return void answerWhen(
        response,
        models.requestsChanged,
        () => state.requests.length >= wanted && abortedNow() >= aborted,
        () => `model ${model}: ${state.requests.length} requests (${abortedNow()} aborted), not ${wanted} (${aborted} aborted)`,
        () => state.requests,
      );
    }
    case "GET /__control/cache":
      return sendJson(response, 200, { entries: options.cacheEntries(model) });
    default:
      return sendJson(response, 404, { error: `no route ${route}` });
  }
}

/** Where a scripted stream breaks off instead of ending: an error frame, or the connection cut, after `at` frames. */
export type StreamBreak = { at: number; errorFrame: string } | { at: number; cut: true };

/**
 * Streams `frames` (SSE text) as scripted: `eventDelayMs` after each, held open after each frame
 * `holdsAfter` names until the client goes away (or a minute passes), broken off at `breaks`;
 * `tail` ends a stream that ran to its end. Stops writing once the client is gone.
 */
export async function streamFrames(
  response: ServerResponse,
  exchange: Exchange,
  record: { outcome: string },
  stream: { headers: Record<string, string>; frames: string[]; eventDelayMs: number; holdsAfter: (index: number) => boolean; breaks: StreamBreak | undefined; tail?: string },
): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...stream.headers });
  for (const [i, frame] of stream.frames.entries()) {
    if (exchange.closed) return;
    if (stream.breaks?.at === i) {
      if ("errorFrame" in stream.breaks) {
        record.outcome = "stream-error";
        response.end(stream.breaks.errorFrame);
        return;
      }
      record.outcome = "cut";
      // Let what was written reach the client first, so the cut is in the middle of the body.
      await new Promise<void>((resolve) => setTimeout(resolve, 20));
      response.destroy();
      return;
    }
    await new Promise<void>((resolve) => response.write(frame, () => resolve()));
    if (stream.holdsAfter(i)) {
      await exchange.wait(60_000);
      if (exchange.closed) return;
    }
    await exchange.wait(stream.eventDelayMs);
  }
  response.end(stream.tail);
}
