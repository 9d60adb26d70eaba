// /a2a/{name}: a stored agent as an A2A server (protocol 1.0, JSON-RPC binding). Its card is
// public; POST takes JSON-RPC 2.0 with the usual bearer tokens (a user token, which reaches its
// own subject's tasks and runs, or the deployment token) and rate limits. Authentication, rate
// limits and an unknown agent answer in the API's error shape, as every route does; everything
// about a call itself answers as a JSON-RPC error with the protocol's codes.
import { Hono, type Context } from "hono";
import { A2A_ERRORS, type A2aStreamEvent } from "../../api/a2a/a2a-types";
import { agentCard } from "../../api/a2a/agent-card";
import { A2aError, envelopeSchema, rpcError, rpcResult, type RequestId } from "../../api/a2a/json-rpc";
import { withEventId } from "../../api/a2a/stream-events";
import { callbackBase } from "../../config/public-url";
import { withKeepAlive } from "../../lib/sse/sse-keep-alive";
import type { AppEnv } from "../app-env";
import { identify, identifyDeploymentOrUser, limitUser, type Caller } from "../auth/auth";
import { limitAgentCard } from "../auth/rate-limit";
import { ApiException } from "../errors";
import { cancelTask, getTask, rpcErrorOf, sendMessage, sendStreamingMessage, subscribeToTask, type A2aCall, type TaskStream } from "./a2a-methods";
import { listTasks } from "./task-list";
import { AGENT_NOT_FOUND } from "../../api/resources/agent-types";
import { findAgent, type AgentAsker } from "./agent-port";

const encoder = new TextEncoder();

function sseData(id: RequestId, body: Record<string, unknown>, eventId?: string): Uint8Array {
  return encoder.encode(`${eventId === undefined ? "" : `id: ${eventId}\n`}data: ${JSON.stringify({ jsonrpc: "2.0", id, ...body })}\n\n`);
}

/**
 * A failure mid-stream as the stream's last event: the protocol's own error, the run's refusal
 * (ending the watch: a revoked or expired user token, with its API code and status), or any other
 * failure, which a resubscribe may get past.
 */
function streamError(error: unknown): { code: number; message: string; data?: Record<string, unknown> } {
  if (error instanceof A2aError) return { code: error.code, message: error.message };
  if (error instanceof ApiException) return { code: rpcErrorOf(error)?.code ?? A2A_ERRORS.internalError, message: error.message, data: { code: error.code, status: error.status } };
  return { code: A2A_ERRORS.internalError, message: "The task's events could not be read; subscribe again (SubscribeToTask with Last-Event-ID)." };
}

/**
 * A stream's events as SSE: each a JSON-RPC response to the request, with the event's id (as SSE id
 * and in its metadata, where the official client shows it); a failure mid-stream is its last
 * event, an internal error.
 */
function sseResponse(id: RequestId, stream: TaskStream, keepAliveSeconds: number): Response {
  const { frames } = stream;
  let first: A2aStreamEvent | undefined = stream.first;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (first !== undefined) {
          controller.enqueue(sseData(id, { result: withEventId(first, stream.firstId) }));
          first = undefined;
          return;
        }
        try {
          const next = await frames.next();
          if (next.done === true) controller.close();
          else if (next.value.id === undefined) controller.enqueue(sseData(id, { result: next.value.event }));
          else controller.enqueue(sseData(id, { result: withEventId(next.value.event, next.value.id) }, next.value.id));
        } catch (error) {
          controller.enqueue(sseData(id, { error: streamError(error) }));
          controller.close();
        }
      },
      async cancel() {
        await frames.return(undefined as never);
      },
    },
    { highWaterMark: 0 },
  );
  return withKeepAlive(new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } }), keepAliveSeconds);
}

function asker(caller: Caller): AgentAsker {
  if (caller.kind === "deployment") return { kind: "deployment" };
  if (caller.kind === "user") return { kind: "user", subject: caller.subject };
  return undefined;
}

async function dispatch(call: A2aCall, method: string, params: unknown, id: RequestId, c: Context<AppEnv>): Promise<Response> {
  switch (method) {
    case "SendMessage":
      return c.json(rpcResult(id, await sendMessage(call, params)));
    case "SendStreamingMessage":
      return sseResponse(id, await sendStreamingMessage(call, params), c.var.settings.limits.sseKeepAliveSeconds);
    case "GetTask":
      return c.json(rpcResult(id, await getTask(call, params)));
    case "ListTasks":
      return c.json(rpcResult(id, await listTasks(call, params)));
    case "CancelTask":
      return c.json(rpcResult(id, await cancelTask(call, params)));
    case "SubscribeToTask":
      return sseResponse(id, await subscribeToTask(call, params, c.req.header("last-event-id")), c.var.settings.limits.sseKeepAliveSeconds);
    case "CreateTaskPushNotificationConfig":
    case "GetTaskPushNotificationConfig":
    case "ListTaskPushNotificationConfigs":
    case "DeleteTaskPushNotificationConfig":
      throw new A2aError(A2A_ERRORS.pushNotificationNotSupported, "Push notifications are not supported: follow a task with SendStreamingMessage or SubscribeToTask.");
    case "GetExtendedAgentCard":
      throw new A2aError(A2A_ERRORS.unsupportedOperation, "This agent has no extended card.");
    default:
      throw new A2aError(A2A_ERRORS.methodNotFound, `Unknown method ${method}.`);
  }
}

export function a2aApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/:name/.well-known/agent-card.json", async (c) => {
    // Public, for the agents every caller sees; a bearer token shows its caller's own agents too. A
    // read without a deployment or user token (a run token reads as none) counts per client address,
    // a user token's per subject; a name that is no agent's costs no read of the agents object
    // (its pattern is checked first, a miss is kept briefly: src/http/agents/agent-cache.ts).
    const caller = c.req.header("authorization") === undefined ? undefined : await identify(c);
    const reader = caller === undefined ? undefined : asker(caller);
    if (reader === undefined) await limitAgentCard(c.env, c.req.header("cf-connecting-ip"));
    else if (caller?.kind === "user") await limitUser(c, caller.subject);
    const agent = await findAgent(c, c.req.param("name"), reader);
    if (agent === undefined) throw new ApiException(404, AGENT_NOT_FOUND);
    const base = callbackBase(c.env, new URL(c.req.url).origin) ?? new URL(c.req.url).origin;
    return c.json(agentCard(agent, base));
  });

  app.post("/:name", async (c) => {
    const caller = await identifyDeploymentOrUser(c, "A run token cannot call agents; use the deployment token or a user token.");
    const agent = await findAgent(c, c.req.param("name"), asker(caller));
    if (agent === undefined) throw new ApiException(404, AGENT_NOT_FOUND);
    let id: RequestId = null;
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        throw new A2aError(A2A_ERRORS.parseError, "The body is not JSON.");
      }
      const envelope = envelopeSchema.safeParse(raw);
      if (!envelope.success) throw new A2aError(A2A_ERRORS.invalidRequest, "Not a JSON-RPC 2.0 request: jsonrpc \"2.0\", method and params.");
      id = envelope.data.id ?? null;
      return await dispatch({ c, agent, caller }, envelope.data.method, envelope.data.params, id, c);
    } catch (error) {
      const rpc = error instanceof A2aError ? error : error instanceof ApiException ? rpcErrorOf(error) : undefined;
      if (rpc === undefined) throw error;
      return c.json(rpcError(id, rpc.data === undefined ? { code: rpc.code, message: rpc.message } : { code: rpc.code, message: rpc.message, data: rpc.data }));
    }
  });

  return app;
}
