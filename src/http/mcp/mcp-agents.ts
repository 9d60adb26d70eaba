// What the MCP server of one request may reach, for its caller: the caller's agents as tools, the
// start of an agent's run (through the one intake), the run's events and links, and the session's
// idempotency key for a request id.
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import type { Caller } from "../auth/auth";
import { runStub } from "../run-stub";
import { runLinks } from "./call-results";
import type { McpDeps } from "./mcp-server";
import type { McpSession } from "./mcp-session";
import { readRunEvents } from "./run-events";

/** The Idempotency-Key of a call: the session's and the JSON-RPC request id's (a string id and a number id never meet). */
export function callKey(session: McpSession, requestId: string | number): string {
  return `mcp:${session.id}:${typeof requestId}:${requestId}`;
}

export function mcpDeps(c: Context<AppEnv>, caller: Exclude<Caller, { kind: "run" }>, session: McpSession | undefined): McpDeps {
  const base = new URL(c.req.url).origin;
  const token = caller.kind === "user" ? c.var.watcherToken : undefined;
  return {
    agents: async () => [],
    start: async () => undefined,
    events: (runId, after) => readRunEvents(runStub(c.env, runId), runId, after, caller.kind, token),
    links: (runId) => runLinks(base, runId),
    keyOf: (requestId) => (session === undefined ? undefined : callKey(session, requestId)),
    elicitation: session?.elicitation ?? false,
    callSeconds: c.var.settings.limits.mcpCallSeconds,
  };
}
