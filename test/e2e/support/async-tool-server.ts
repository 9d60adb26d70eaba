// An async HTTP tool server for end-to-end tests and benchmarks (docs/http-tools.md "Tools that
// answer later"). It takes each job once per Idempotency-Key, counts every send of it, and sends the
// result to the call's callback with the call's token, as a real tool server would:
//
//   POST /job?acceptMs=<n>&after=<ms>   records the send; answers 202, the first send of a job after
//                                       n ms (default 0; a resend at once). A new job with `after` is
//                                       answered by the server itself, `after` ms after it was taken;
//                                       otherwise the test calls deliver().
//
// A resend of a job it has (same Idempotency-Key) is answered 202 again and not taken twice.
import { createServer, type Server } from "node:http";
import { changes } from "./changes";
import { listen, readBody, sendJson, shut } from "./http-server";

export type Callback = { url: string; token: string };

export type AsyncJob = {
  key: string;
  /** What the first send carried: the call and its callback. */
  body: { runId: string; callId: string; name: string; input: unknown; callback: Callback };
  /** Every send's raw body, in order (a resend must be the same bytes but for the signature). */
  sends: string[];
  /** ms since the epoch of each send's arrival. */
  arrivals: number[];
  /** ms since the epoch when the job was taken (the first 202 written). */
  acceptedAt?: number;
  /** Each result sent to the callback: when, and the status it got. */
  deliveries: { at: number; status: number }[];
};

export type AsyncToolServer = {
  url: string;
  port: number;
  jobs: Map<string, AsyncJob>;
  /** POSTs `result` to the job's callback (with another token when given); the status it got. */
  deliver: (key: string, result: unknown, token?: string) => Promise<number>;
  /** Resolves once `check()` holds, checked again on every send, 202 and delivery; fails after `timeoutMs`. */
  until: (check: () => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  close: () => Promise<void>;
};

export async function startAsyncToolServer(): Promise<AsyncToolServer> {
  const jobs = new Map<string, AsyncJob>();
  const log = changes();

  const deliver = async (key: string, result: unknown, token?: string): Promise<number> => {
    const job = jobs.get(key);
    if (job === undefined) throw new Error(`no job ${key}`);
    const response = await fetch(job.body.callback.url, {
      method: "POST",
      headers: { Authorization: `Bearer ${token ?? job.body.callback.token}`, "Content-Type": "application/json" },
      body: JSON.stringify(result),
    });
    await response.arrayBuffer();
    job.deliveries.push({ at: Date.now(), status: response.status });
    log.changed();
    return response.status;
  };

  const server: Server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (request.method !== "POST" || url.pathname !== "/job") return sendJson(response, 404, { error: "no such route" });
      const key = String(request.headers["idempotency-key"] ?? "");
      let job = jobs.get(key);
      const fresh = job === undefined;
      if (job === undefined) {
        job = { key, body: JSON.parse(text) as AsyncJob["body"], sends: [], arrivals: [], deliveries: [] };
        jobs.set(key, job);
      }
      job.sends.push(text);
      job.arrivals.push(Date.now());
      log.changed();
      const taken = job;
      const timer = setTimeout(() => {
        if (response.destroyed) return;
        sendJson(response, 202, { accepted: true });
        taken.acceptedAt ??= Date.now();
        log.changed();
        const after = url.searchParams.get("after");
        if (fresh && after !== null) setTimeout(() => void deliver(key, { content: `result of ${taken.body.callId}` }).catch(() => undefined), Number(after));
      }, fresh ? Number(url.searchParams.get("acceptMs") ?? "0") : 0);
      response.on("close", () => clearTimeout(timer));
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    jobs,
    deliver,
    until: log.until,
    close: () => shut(server),
  };
}
