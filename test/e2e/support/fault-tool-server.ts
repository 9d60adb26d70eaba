// A local HTTP tool server for end-to-end tests and benchmarks. It records every call by its
// Idempotency-Key (arrival and answer times, and calls whose connection closed before an answer),
// and plays the faults a real tool has:
//
//   POST /work?ms=<n>&jitter=<n>   JSON { content } after n ms (+ up to jitter ms)
//   POST /fail?status=<s>          status s (default 500) with a short text body
//   POST /hang                     never answers (until the caller gives up or the server dies)
//   POST /redirect?status=<s>&to=<url>   a redirect (default 302) to `to`
//   POST /garbage                  200 application/json that does not parse
//
// `die()` stops the server the hard way: every open connection is destroyed, nothing listens.
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { changes } from "./changes";
import { listen, readBody, sendJson } from "./http-server";

export type CallRecord = {
  key: string;
  route: string;
  /** ms since the epoch of each arrival (one per send of this key). */
  arrivals: number[];
  /** ms since the epoch of each answer sent. */
  answers: number[];
  /** Sends whose connection closed before they were answered (the caller gave up or died). */
  abandoned: number;
  /** ms since the epoch of each of those closes. */
  abandonedAt: number[];
  body: unknown;
};

export type FaultToolServer = {
  url: string;
  port: number;
  calls: Map<string, CallRecord>;
  /** Calls whose arrival count is greater than one. */
  resent: () => CallRecord[];
  /** Resolves once `check()` holds, checked again on every arrival, answer and abandoned call; fails after `timeoutMs`. */
  until: (check: () => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  die: () => Promise<void>;
  close: () => Promise<void>;
};

export async function startFaultToolServer(options: { port?: number } = {}): Promise<FaultToolServer> {
  const calls = new Map<string, CallRecord>();
  const sockets = new Set<Socket>();
  const log = changes();

  const record = (key: string, route: string, body: unknown): CallRecord => {
    let call = calls.get(key);
    if (call === undefined) {
      call = { key, route, arrivals: [], answers: [], abandoned: 0, abandonedAt: [], body };
      calls.set(key, call);
    }
    call.arrivals.push(Date.now());
    log.changed();
    return call;
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const text = await readBody(request);
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      const key = String(request.headers["idempotency-key"] ?? `no-key:${Date.now()}:${Math.random()}`);
      const call = record(key, url.pathname, body);
      let answered = false;
      response.on("close", () => {
        if (answered) return;
        call.abandoned++;
        call.abandonedAt.push(Date.now());
        log.changed();
      });
      const answer = (send: () => void) => {
        if (response.destroyed || response.writableEnded) return;
        answered = true;
        call.answers.push(Date.now());
        send();
        log.changed();
      };
      switch (url.pathname) {
        case "/work": {
          const ms = Number(url.searchParams.get("ms") ?? "0") + Math.random() * Number(url.searchParams.get("jitter") ?? "0");
          const timer = setTimeout(() => answer(() => sendJson(response, 200, { content: `done ${key} (arrival ${call.arrivals.length})` })), ms);
          response.on("close", () => clearTimeout(timer));
          return;
        }
        case "/fail": {
          const status = Number(url.searchParams.get("status") ?? "500");
          return answer(() => {
            response.writeHead(status, { "Content-Type": "text/plain" });
            response.end(`tool failure ${status}`);
          });
        }
        case "/hang":
          return; // Never answered: the caller's timeout, a cancel or die() ends it.
        case "/redirect": {
          const status = Number(url.searchParams.get("status") ?? "302");
          return answer(() => {
            response.writeHead(status, { Location: url.searchParams.get("to") ?? "http://127.0.0.1:9/" });
            response.end();
          });
        }
        case "/garbage":
          return answer(() => {
            response.writeHead(200, { "Content-Type": "application/json" });
            response.end("{not json");
          });
        default:
          return answer(() => sendJson(response, 404, { error: `no route ${url.pathname}` }));
      }
    })().catch((error: unknown) => {
      if (!response.writableEnded && !response.destroyed) sendJson(response, 500, { error: String(error) });
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listen(server, options.port);
  let closed = false;
  const stop = async (hard: boolean) => {
    if (closed) return;
    closed = true;
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    if (hard) for (const socket of sockets) socket.destroy();
    else server.closeAllConnections();
    await done;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    resent: () => [...calls.values()].filter((call) => call.arrivals.length > 1),
    until: log.until,
    die: () => stop(true),
    close: () => stop(false),
  };
}
