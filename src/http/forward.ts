// An events request as the edge hands it to an object: without credentials and without the query
// parameters that were only for the edge, saying who is calling (CALLER_HEADER) and, for a user
// token, which (WATCHER_TOKEN_HEADER: the stream ends with that token).
import { CALLER_HEADER, WATCHER_TOKEN_HEADER } from "../api/rpc/run-rpc";
import type { WatcherToken } from "../api/types";

export function wantsEventStream(request: Request): boolean {
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return true;
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

export function forwarded(request: Request, caller: string, dropParams: readonly string[] = ["ticket"], token?: WatcherToken): Request {
  const url = new URL(request.url);
  for (const name of dropParams) url.searchParams.delete(name);
  const headers = new Headers(request.headers);
  headers.delete("authorization");
  headers.delete(WATCHER_TOKEN_HEADER);
  headers.set(CALLER_HEADER, caller);
  if (token !== undefined) headers.set(WATCHER_TOKEN_HEADER, JSON.stringify(token));
  return new Request(url, { method: request.method, headers });
}
