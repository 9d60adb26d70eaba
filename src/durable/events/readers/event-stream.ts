// GET /v1/runs/:id/events inside the run object (and GET /v1/inbox/events inside an inbox, whose log
// is an `event` table of the same shape): every stored event after `after` (or Last-Event-ID), then
// live events, over a hibernatable WebSocket or as Server-Sent Events read at the reader's pace.
// At most WATCHERS_LIMIT watchers at once: one more is a 429. A run's stream refuses a cursor past
// its newest seq (400), which would hold a watcher waiting for events that are not coming.
import { AFTER_MESSAGE, AFTER_PATTERN } from "../../../api/rules/event-cursor";
import type { CallerKind, WatcherToken } from "../../../api/types";
import { eventsAfter, newestSeq } from "../log/event-log";
import type { Fanout } from "./fanout";
import { SseStream } from "./sse-stream";

function errorResponse(status: 400 | 410 | 429, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: status === 429 ? { "Retry-After": "60" } : {} });
}

export type StreamOptions = {
  caller: CallerKind;
  /** The user token that opened the stream, if one did: the watcher ends with it. */
  token?: WatcherToken;
  watchersLimit: number;
  now: () => number;
  /** A cursor past the newest seq is refused (400): a run's log only grows, so such a cursor is none of its own and would wait for ever. */
  refusePastNewest?: boolean;
  /** For a log that is trimmed (an inbox's): its oldest kept seq, or undefined when it holds none. */
  oldestKept?: () => number | undefined;
  /** A live event the watcher gets right after the stored ones up to now (the step's text so far, when the request asks for it). */
  firstLive?: object;
};

/** `caller` is who opened the stream (the edge says so): it tags the watcher. */
export function openEventStream(ctx: DurableObjectState, fanout: Fanout, request: Request, options: StreamOptions): Response {
  const url = new URL(request.url);
  const after = url.searchParams.get("after") ?? request.headers.get("Last-Event-ID") ?? "0";
  if (!AFTER_PATTERN.test(after)) return errorResponse(400, "invalid-request", `\`after\` (or Last-Event-ID): ${AFTER_MESSAGE}`);
  const websocket = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
  const sse = (request.headers.get("Accept") ?? "").toLowerCase().includes("text/event-stream");
  if (!websocket && !sse) return errorResponse(400, "invalid-request", "Ask for events with a WebSocket upgrade or `Accept: text/event-stream`.");
  const { sql } = ctx.storage;
  const newest = options.refusePastNewest === true ? newestSeq(sql) : undefined;
  if (newest !== undefined && Number(after) > newest) {
    return errorResponse(400, "invalid-request", `\`after\` (or Last-Event-ID): past the run's newest event (seq ${newest}). Resume from a seq this run sent.`);
  }
  const oldest = options.oldestKept?.();
  if (oldest !== undefined && Number(after) + 1 < oldest) {
    return errorResponse(
      410,
      "cursor-expired",
      `Events before seq ${oldest} are no longer kept (INBOX_EVENTS_DAYS): the oldest is ${oldest}. List the runs again (GET /v1/runs), then follow the stream from the listing's lastSeq.`,
    );
  }
  if (fanout.watchers >= options.watchersLimit) {
    return errorResponse(429, "rate-limited", `Too many watchers: at most ${options.watchersLimit} sockets and streams at once here (WATCHERS_LIMIT). Close one, or try again later.`);
  }
  if (websocket) {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    fanout.acceptSocket(server, options.caller, options.token);
    // Sent in the same turn as the read, so no event can slip between the backlog and live ones.
    for (const event of eventsAfter(sql, Number(after))) server.send(event.text);
    if (options.firstLive !== undefined) server.send(JSON.stringify(options.firstLive));
    return new Response(null, { status: 101, webSocket: client });
  }
  const stream: SseStream = new SseStream(
    { after: (seq, limit) => eventsAfter(sql, seq, limit), newest: () => newestSeq(sql), now: options.now },
    Number(after),
    () => fanout.dropStream(stream),
  );
  fanout.addStream(stream, options.caller, options.token);
  // Queued now, in the same turn as the newest seq it follows: no delta can come before it.
  if (options.firstLive !== undefined) stream.pushLive(JSON.stringify(options.firstLive));
  return new Response(stream.readable, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}
