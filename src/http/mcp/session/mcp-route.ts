// /mcp: Ratchet's agents as an MCP server (Streamable HTTP, protocol 2025-11-25). POST carries
// JSON-RPC (a tools/call answers over its own SSE response: progress, elicitations, the result),
// at most MCP_MESSAGES_PER_POST messages; GET is 405, as for any stateless server: there is no
// stream for messages outside a call, since every message here belongs to a call's POST (the SDK's
// client takes the 405 as "no such stream" and goes on); DELETE ends a session, which holds
// nothing to end. Each request builds its own server and transport: no state lives between
// requests (mcp-session.ts says where the session is; elicitation.ts where an answer goes).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../app-env";
import { identifyDeploymentOrUser } from "../../auth/auth";
import { withKeepAlive } from "../../../lib/sse/sse-keep-alive";
import { creatorOf, mcpDeps } from "../calls/mcp-agents";
import { cancelCalls, cancelledRequests } from "./mcp-cancel";
import { deliverAnswers, onlyResponses } from "../answers/mcp-answers";
import { connectServer, mcpServer } from "./mcp-server";
import { declaresFormElicitation, newSession, sessionOf, type McpSession } from "./mcp-session";

export const SESSION_HEADER = "mcp-session-id";

/** The `initialize` request among the messages, if one is. */
function initializeOf(messages: readonly unknown[]): { params?: { capabilities?: unknown } } | undefined {
  return messages.find((message): message is { method: string; params?: { capabilities?: unknown } } => typeof message === "object" && message !== null && (message as { method?: unknown }).method === "initialize");
}

/** A refusal of the whole request in the transport's own shape: a JSON-RPC error with no id. */
function transportError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/** The response with the session's id added (the transport, stateless, gives none). */
function withSession(response: Response, session: McpSession): Response {
  const headers = new Headers(response.headers);
  headers.set(SESSION_HEADER, session.id);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function handle(c: Context<AppEnv>): Promise<Response> {
  // Who reads a call's run: the one watch opens the run's events as this caller.
  const caller = await identifyDeploymentOrUser(c, "A run token cannot use the MCP server; use the deployment token or a user token.");
  if (c.req.method === "GET") return transportError(405, -32000, "Method not allowed: this server offers no stream outside a call (each call answers on its own POST).", { Allow: "POST, DELETE" });
  let messages: unknown[] = [];
  let parsedBody: unknown;
  if (c.req.method === "POST") {
    try {
      parsedBody = JSON.parse(await c.req.text());
    } catch {
      return transportError(400, -32700, "Parse error: the body is not JSON.");
    }
    messages = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
    // Each message may cost the run objects several calls, and the POST counts once against the rate limits.
    const most = c.var.settings.limits.mcpMessagesPerPost;
    if (messages.length > most) return transportError(400, -32600, `Invalid Request: at most ${most} JSON-RPC messages in one POST (MCP_MESSAGES_PER_POST); this one holds ${messages.length}. Send the rest in another.`);
    if (onlyResponses(messages)) {
      await deliverAnswers(messages, { env: c.env, runIdKeys: c.var.settings.runIdKeys, subject: caller.kind === "user" ? caller.subject : undefined });
      return c.body(null, 202);
    }
  }
  const initialize = initializeOf(messages);
  const session = initialize !== undefined ? newSession(declaresFormElicitation(initialize.params?.capabilities)) : sessionOf(c.req.header(SESSION_HEADER));
  // A call given up: its run is cancelled (the server of this request never saw the call).
  const cancelled = cancelledRequests(messages);
  if (cancelled.length > 0 && session !== undefined) await cancelCalls(cancelled, { env: c.env, runIdKeys: c.var.settings.runIdKeys, creator: creatorOf(caller), session });
  const { server, transport } = mcpServer(mcpDeps(c, caller, session));
  await connectServer(server, transport);
  // A call's answer is an SSE stream that may be quiet for MCP_CALL_SECONDS: it gets keep-alives as every stream does.
  const response = withKeepAlive(await transport.handleRequest(c.req.raw, parsedBody === undefined ? {} : { parsedBody }), c.var.settings.limits.sseKeepAliveSeconds);
  return initialize !== undefined && session !== undefined ? withSession(response, session) : response;
}

export function mcpApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.on(["POST", "GET", "DELETE"], "/", handle);
  return app;
}
