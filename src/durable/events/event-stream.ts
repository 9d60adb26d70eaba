// GET /v1/runs/:id/events inside the run object (and GET /v1/inbox/events inside an inbox, whose log
// is an `event` table of the same shape): every stored event after `after` (or Last-Event-ID), then
// live events, over a hibernatable WebSocket or as Server-Sent Events.
import { AFTER_MESSAGE, AFTER_PATTERN } from "../../api/event-cursor";
import type { CallerKind } from "../../api/types";
import { eventsAfter } from "./event-log";
import { type Fanout, sseFrame } from "./fanout";

function errorResponse(message: string): Response {
  return Response.json({ error: { code: "invalid-request", message } }, { status: 400 });
}

/** `caller` is who opened the stream (the edge says so): it tags the watcher. */
export function openEventStream(ctx: DurableObjectState, fanout: Fanout, request: Request, caller: CallerKind): Response {
  const url = new URL(request.url);
  const after = url.searchParams.get("after") ?? request.headers.get("Last-Event-ID") ?? "0";
  if (!AFTER_PATTERN.test(after)) return errorResponse(`\`after\` (or Last-Event-ID): ${AFTER_MESSAGE}`);
  const backlog = eventsAfter(ctx.storage.sql, Number(after));
  if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    ctx.acceptWebSocket(server, [caller]);
    // Sent in the same turn as the read, so no event can slip between the backlog and live ones.
    for (const event of backlog) server.send(event.text);
    return new Response(null, { status: 101, webSocket: client });
  }
  if ((request.headers.get("Accept") ?? "").toLowerCase().includes("text/event-stream")) {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    for (const event of backlog) void writer.write(sseFrame(event)).catch(() => undefined);
    fanout.addStream(writer, caller);
    return new Response(readable, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
  }
  return errorResponse("Ask for events with a WebSocket upgrade or `Accept: text/event-stream`.");
}
