// The event stream over a WebSocket. Browsers cannot set headers on a WebSocket, so the token
// travels as `?token=` (API.md "Auth").
import { Channel } from "./channel";
import { connectionOf, pushFrame, type Connection } from "./connection";
import type { WebSocketConstructorLike } from "./transport";

export function webSocketUrl(baseUrl: string, runId: string, after: number, token: string): string {
  const base = baseUrl.replace(/^http/i, "ws");
  return `${base}/v1/runs/${encodeURIComponent(runId)}/events?after=${after}&token=${encodeURIComponent(token)}`;
}

export function openWebSocket(Socket: WebSocketConstructorLike, url: string): Connection {
  const channel = new Channel<unknown>();
  let opened = false;
  const socket = new Socket(url);
  socket.addEventListener("open", () => {
    opened = true;
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data === "string") pushFrame(channel, event.data);
  });
  // A socket that fails may or may not say so before it closes: either ends this connection.
  socket.addEventListener("close", () => channel.end());
  socket.addEventListener("error", () => channel.end());
  return connectionOf(
    channel,
    () => opened,
    () => {
      try {
        socket.close(1000, "done");
      } catch {
        // Already closed or never opened.
      }
    },
  );
}
