// /v1/ag-ui: AG-UI 1.0 (what CopilotKit and @ag-ui/client's HttpAgent speak) on a durable run
// (docs/ag-ui.md). POST /v1/ag-ui/{agent}: a thread of a stored agent (one run per thread);
// POST /v1/ag-ui/runs/{runId}: an existing run. The body is a RunAgentInput; what it asks (an
// answer to the run's interrupt, a client tool's result, a message) is done through the functions
// the run routes use, then the run's events go out as the AG-UI stream (ag-ui-stream.ts), every
// event with the run's sequence as its SSE id. A request with Last-Event-ID asks nothing: it
// resumes the stream after that id. Refusals before the stream are the API's errors.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agUiAction } from "../../api/ag-ui/incoming-action";
import { cursorSeq, parseEventId, type AgUiCursor } from "../../api/ag-ui/event-ids";
import type { RunAgentInput } from "../../api/ag-ui/run-input";
import { answerBodySchema, continueBodySchema } from "../../api/schemas/person/answer-schemas";
import type { RunView } from "../../api/types";
import type { AppEnv } from "../app-env";
import { admitCreator } from "../auth/auth";
import { ApiException, invalidRequest, validationHook } from "../errors";
import { unwrap } from "../outcome";
import { answerRun, sendMessageTo } from "../routes/runs/run-actions";
import type { RunStub } from "../run-stub";
import { agUiStream } from "./ag-ui-stream";
import { agUiAgentRoute, agUiRunRoute, threadCallerOf } from "./ag-ui-routes";
import { findThreadRun, startThreadRun } from "./thread-run";

type Issues = { issues: { path: PropertyKey[]; message: string }[] };

function issuesOf(error: Issues, prefix: string[] = []): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: [...prefix, ...issue.path].map(String).join("."), message: issue.message }));
}

/** The Last-Event-ID of a resume, checked against the run: one this stream sends, at most the run's newest event. */
function cursorOf(c: Context<AppEnv>, view: RunView): AgUiCursor | undefined {
  const header = c.req.header("last-event-id");
  if (header === undefined) return undefined;
  const cursor = parseEventId(header);
  if (cursor === undefined) throw invalidRequest("Invalid Last-Event-ID.", [{ path: "Last-Event-ID", message: "Not an id this stream sends: <seq>, <seq>.<n>, <seq>~<n> or s<seq>." }]);
  if (cursorSeq(cursor) > view.lastSeq) {
    throw invalidRequest("Invalid Last-Event-ID.", [{ path: "Last-Event-ID", message: `Past the run's newest event (seq ${view.lastSeq}): resume from an id this stream sent.` }]);
  }
  return cursor;
}

/** The seq a stream that asked nothing starts after: a run at a stop shows that stop (its last event), a running one what comes. */
function followFrom(view: RunView): number {
  return view.status === "running" ? view.lastSeq : Math.max(0, view.lastSeq - 1);
}

/**
 * The reply a reloaded page kept in part: its last message, when it is one of this run's text
 * messages (`<runId>-m<step>`), as the characters the stream need not send again.
 */
function heldReply(input: RunAgentInput, runId: string): { messageId: string; chars: number } | undefined {
  const last = input.messages.at(-1);
  if (last?.role !== "assistant" || typeof last.content !== "string" || !last.id.startsWith(`${runId}-m`)) return undefined;
  return { messageId: last.id, chars: last.content.length };
}

/** The thread's run does what the input asks, then streams from before what that makes. */
async function act(c: Context<AppEnv>, input: RunAgentInput, runId: string, run: RunStub, view: RunView): Promise<Response> {
  const plan = { runId, run, threadId: input.threadId, agRunId: input.runId };
  const cursor = cursorOf(c, view);
  if (cursor !== undefined) return agUiStream(c, { ...plan, cursor });
  const action = agUiAction(input, view.waiting === undefined ? { status: view.status } : { status: view.status, waiting: view.waiting });
  switch (action.kind) {
    case "refused":
      throw new ApiException(action.status, action.message, action.issues === undefined ? {} : { issues: action.issues });
    case "answer": {
      const body = answerBodySchema.safeParse(action.body);
      // Where the answer came from: the resume list, or the trailing message.
      const from = input.resume !== undefined && input.resume.length > 0 ? ["resume", "0"] : ["messages", String(input.messages.length - 1)];
      if (!body.success) throw invalidRequest("Invalid request body.", issuesOf(body.error, from));
      await answerRun(c, body.data, run);
      return agUiStream(c, { ...plan, after: view.lastSeq });
    }
    case "message": {
      const body = continueBodySchema.safeParse({ content: action.content, messageId: action.messageId, mode: "queue" });
      if (!body.success) throw invalidRequest("Invalid request body.", issuesOf(body.error, ["messages", String(input.messages.length - 1)]));
      await sendMessageTo(c, run, body.data);
      return agUiStream(c, { ...plan, after: view.lastSeq });
    }
    case "none":
      return agUiStream(c, { ...plan, after: followFrom(view), held: heldReply(input, runId) });
  }
}

export function agUiApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(agUiRunRoute, async (c) => {
    const input = c.req.valid("json");
    const runId = c.req.valid("param").runId;
    return (await act(c, input, runId, c.var.run, unwrap(await c.var.run.view()))) as never;
  });

  app.openapi(agUiAgentRoute, async (c) => {
    const caller = threadCallerOf(c.req.raw);
    const name = c.req.valid("param").agent;
    const input = c.req.valid("json");
    const thread = await findThreadRun(c, caller, name, input.threadId);
    if (!thread.exists) {
      if (c.req.header("last-event-id") !== undefined) throw new ApiException(404, "No run for this thread yet: start it without Last-Event-ID.");
      await admitCreator(c, caller);
      await startThreadRun(c, name, input);
      return agUiStream(c, { runId: thread.runId, run: thread.run, threadId: input.threadId, agRunId: input.runId, after: 0 }) as never;
    }
    return (await act(c, input, thread.runId, thread.run, unwrap(await thread.run.view()))) as never;
  });

  return app;
}
