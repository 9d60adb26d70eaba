// The AG-UI door's routes (/v1/ag-ui…) as OpenAPI route configs; paths are relative to the
// /v1/ag-ui mount. A stored agent's threads take the deployment token or a user token (the agent
// found for it before the body is read); a run's own route is the run routes' auth (requireRun).
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { runAgentInputSchema } from "../../api/ag-ui/run-input";
import { requireAgent } from "../agents/agents";
import type { AppEnv } from "../app-env";
import { identifyDeploymentOrUser, requireRun, type Caller } from "../auth/auth";
import { readerOf } from "../auth/agent-auth";
import { errors } from "../routes/definitions/run-routes";

const agUiStream = {
  description:
    "The AG-UI 1.0 event stream (Server-Sent Events): each event a `data: <event JSON>` line, with the run's sequence as its `id:`; it ends at the run's next stop " +
    "(RUN_FINISHED with outcome success, interrupt or cancelled; RUN_ERROR for a failed run, or a failure once the stream began). The run's id is in `x-ratchet-run-id`.",
  headers: z.object({ "x-ratchet-run-id": z.string().openapi({ description: "The Ratchet run the thread is." }) }),
  content: { "text/event-stream": { schema: z.string() } },
};

const lastEventId = z.object({
  "last-event-id": z.string().optional().openapi({ description: "Resume a stream after this id (one it sent): nothing is asked of the run, the body's threadId still names it. Past the run's newest event: 400." }),
});

const agentParam = z.string().openapi({ param: { name: "agent", in: "path" }, description: "A stored agent's name.", example: "ticket-triage" });
const runIdParam = z.string().openapi({ param: { name: "runId", in: "path" }, description: "The run's id.", example: "run_abcdefghijklmnopqrstuvwxyz" });

export type ThreadCaller = Exclude<Caller, { kind: "run" }>;

/** Who called, by request: the middleware's, for the handler (creating a thread's run counts against the caller's create limit). */
const callers = new WeakMap<Request, ThreadCaller>();

export function threadCallerOf(request: Request): ThreadCaller {
  const caller = callers.get(request);
  if (caller === undefined) throw new Error("requireAgentThread did not run for this request.");
  return caller;
}

/** A stored agent's thread: the deployment token or a user token (counted), and an agent it sees, before the body is read. */
export function requireAgentThread(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identifyDeploymentOrUser(c, "A run token cannot call agents; use the deployment token or a user token (a run's own token: POST /v1/ag-ui/runs/{runId}).");
    callers.set(c.req.raw, caller);
    await requireAgent(c.env, readerOf(caller.kind === "user" ? { kind: "user", subject: caller.subject } : { kind: "deployment" }), c.req.param("agent") ?? "");
    await next();
  };
}

export const agUiAgentRoute = createRoute({
  method: "post",
  path: "/{agent}",
  summary: "AG-UI: run a thread of a stored agent (one Ratchet run per thread) and stream its AG-UI events",
  description:
    "The body is AG-UI's RunAgentInput. A thread's first request makes its run (its messages, its tools as client tools, its context after the last user message, " +
    "forwardedProps as the run's metadata); a later one answers the interrupt the run waits on (resume), the client tool it waits on (a trailing tool message), or " +
    "continues it with a trailing user message (queued on a running run, the answer of a waiting ask); anything else follows the run.",
  middleware: [requireAgentThread()] as const,
  request: { params: z.object({ agent: agentParam }), headers: lastEventId, body: { required: true, content: { "application/json": { schema: runAgentInputSchema } } } },
  responses: { 200: agUiStream, ...errors(400, 401, 402, 403, 404, 409, 413, 429) },
});

export const agUiRunRoute = createRoute({
  method: "post",
  path: "/runs/{runId}",
  summary: "AG-UI: the same for an existing run (its threadId is the client's, the run is the path's)",
  middleware: [requireRun({ runId: async (c) => c.req.param("runId") })] as const,
  request: { params: z.object({ runId: runIdParam }), headers: lastEventId, body: { required: true, content: { "application/json": { schema: runAgentInputSchema } } } },
  responses: { 200: agUiStream, ...errors(400, 401, 402, 404, 409, 413, 429) },
});
