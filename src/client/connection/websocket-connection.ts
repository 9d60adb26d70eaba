// The event stream over a WebSocket. A browser cannot set headers on a WebSocket and a token must
// never travel in a URL, so each connection first asks for a one-time ticket (with the token in
// the Authorization header) and opens the socket with `?ticket=`.
import { Channel } from "./channel.ts";
import { connectionOf, pushFrame, type Connection } from "./connection.ts";
import type { WebSocketConstructorLike, WebSocketLike } from "./transport.ts";

export function webSocketUrl(baseUrl: string, runId: string, after: number, ticket: string): string {
  const base = baseUrl.replace(/^http/i, "ws");
  return `${base}/v1/runs/${encodeURIComponent(runId)}/events?after=${after}&ticket=${encodeURIComponent(ticket)}`;
}

/** The inbox stream's socket: the ticket names the inbox, so no subject travels in the URL. */
export function inboxWebSocketUrl(baseUrl: string, after: number, ticket: string): string {
  return `${baseUrl.replace(/^http/i, "ws")}/v1/inbox/events?after=${after}&ticket=${encodeURIComponent(ticket)}`;
}

/** Opens the socket once `url` (which fetches a ticket) resolves; a failure to get one ends the connection with that error. */
export function openWebSocket(Socket: WebSocketConstructorLike, url: () => Promise<string>): Connection {
  const channel = new Channel<unknown>();
  let opened = false;
  let closed = false;
  let socket: WebSocketLike | undefined;
  const closeSocket = () => {
    try {
      socket?.close(1000, "done");
    } catch {
      // Already closed or never opened.
    }
  };
  url().then(
    (address) => {
      if (closed) return;
      socket = new Socket(address);
      socket.addEventListener("open", () => {
        opened = true;
      });
      socket.addEventListener("message", (event) => {
        if (typeof event.data === "string") pushFrame(channel, event.data);
      });
      // A socket that fails may or may not say so before it closes: either ends this connection.
      socket.addEventListener("close", () => channel.end());
      socket.addEventListener("error", () => channel.end());
    },
    (error: unknown) => channel.end(error),
  );
  return connectionOf(
    channel,
    () => opened,
    () => {
      closed = true;
      closeSocket();
    },
  );
}
