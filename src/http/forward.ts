// An events request as the edge hands it to an object: without credentials and without the query
// parameters that were only for the edge, and saying who is calling (CALLER_HEADER).
import { CALLER_HEADER } from "../api/run-rpc";

export function wantsEventStream(request: Request): boolean {
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return true;
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

export function forwarded(request: Request, caller: string, dropParams: readonly string[] = ["ticket"]): Request {
  const url = new URL(request.url);
  for (const name of dropParams) url.searchParams.delete(name);
  const headers = new Headers(request.headers);
  headers.delete("authorization");
  headers.set(CALLER_HEADER, caller);
  return new Request(url, { method: request.method, headers });
}
