// A local HTTP tool (or HTTP guardrail check) for end-to-end tests: it counts calls per
// Idempotency-Key and answers after a delay, slow enough for a crash to land while calls are in flight.
import { createServer, type Server } from "node:http";
import { changes } from "./changes";
import { listen } from "./http-server";

export type ToolServer = {
  url: string;
  /** Calls received per Idempotency-Key (a key seen twice means a resend). */
  calls: Map<string, number>;
  /** Calls answered per Idempotency-Key. */
  answered: Map<string, number>;
  /** When each key was first answered (ms since the epoch). */
  answeredAt: Map<string, number>;
  /** Resolves once `check()` holds, checked again on every call and answer; fails after `timeoutMs`. */
  until: (check: () => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  close: () => Promise<void>;
};

/** `answer`: the JSON body each call is answered with (a tool's result by default; a check's verdict for a guardrail). */
export async function startToolServer(delayMs: number, answer: (key: string) => unknown = (key) => ({ content: `done ${key}` })): Promise<ToolServer> {
  const calls = new Map<string, number>();
  const answered = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const log = changes();
  const server: Server = createServer((request, response) => {
    const key = String(request.headers["idempotency-key"] ?? "");
    calls.set(key, (calls.get(key) ?? 0) + 1);
    log.changed();
    request.resume();
    request.on("end", () => {
      setTimeout(() => {
        answered.set(key, (answered.get(key) ?? 0) + 1);
        if (!answeredAt.has(key)) answeredAt.set(key, Date.now());
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify(answer(key)));
        log.changed();
      }, delayMs);
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    answered,
    answeredAt,
    until: log.until,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
