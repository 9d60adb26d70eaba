// @ratchet/client/ag-ui: a Ratchet run as an AG-UI agent whose stream survives a lost connection
// (docs/ag-ui.md). `@ag-ui/client` is an optional peer dependency of @ratchet/client: only this
// entry imports it.
//
//   const agent = ratchetAgUiAgent({ baseUrl, token, agent: "ticket-triage" });
//   agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "Hi" });
//   await agent.runAgent();
import { HttpAgent, type HttpAgentConfig } from "@ag-ui/client";
import { resumingFetch, type FetchFunction, type ResumeOptions } from "./resuming-fetch.ts";

export { resumingFetch };
export type { FetchFunction, ResumeOptions };

export type RatchetAgUiOptions = Omit<HttpAgentConfig, "url" | "fetch"> &
  ResumeOptions & {
    /** The service's origin, e.g. https://ratchet.example.com. */
    baseUrl: string;
    /** A deployment token, a user token, or (with `runId`) the run's own token. */
    token?: string;
    /** fetch to send the requests with (default: the global one). */
    fetch?: FetchFunction;
  } & ({ agent: string; runId?: never } | { runId: string; agent?: never });

/** The AG-UI endpoint of a stored agent's threads, or of one run. */
export function agUiEndpoint(baseUrl: string, target: { agent: string } | { runId: string }): string {
  const base = baseUrl.replace(/\/+$/, "");
  return "agent" in target ? `${base}/v1/ag-ui/${encodeURIComponent(target.agent)}` : `${base}/v1/ag-ui/runs/${encodeURIComponent(target.runId)}`;
}

/** An HttpAgent on a Ratchet agent (or run) whose streams resume with Last-Event-ID after a lost connection. */
export function ratchetAgUiAgent(options: RatchetAgUiOptions): HttpAgent {
  const { baseUrl, token, fetch: fetchImpl, minDelayMs, maxDelayMs, maxTries, agent, runId, headers, ...config } = options;
  const base: FetchFunction = fetchImpl ?? ((url, init) => globalThis.fetch(url, init));
  const resume: ResumeOptions = {};
  if (minDelayMs !== undefined) resume.minDelayMs = minDelayMs;
  if (maxDelayMs !== undefined) resume.maxDelayMs = maxDelayMs;
  if (maxTries !== undefined) resume.maxTries = maxTries;
  return new HttpAgent({
    ...config,
    ...(runId !== undefined && config.threadId === undefined ? { threadId: runId } : {}),
    url: agUiEndpoint(baseUrl, agent !== undefined ? { agent } : { runId: runId! }),
    headers: { ...headers, ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
    fetch: resumingFetch(base, resume),
  });
}
