// The AI SDK chat routes (/v1/ai-sdk/{v}/chat…) as OpenAPI route configs. Paths are relative to the
// /v1/ai-sdk mount. Auth is the run routes' own (requireRun), the run's id read from the body (POST)
// or the path's runId.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { chatRequestSchema } from "../../../api/schemas/person/chat-schemas";
import { CHAT_VERSIONS } from "../../../api/ai-sdk/versions";
import { requireRun } from "../../auth/auth";
import type { AppEnv } from "../../app-env";
import { invalidRequest } from "../../errors";
import { requireChatVersion } from "../ai-sdk/chat-version";
import { errors, json } from "./run-routes";
import { runViewSchema } from "../../../api/schemas/runs/run-view-schemas";

const versionParam = z.string().openapi({ param: { name: "v", in: "path" }, description: `The AI SDK's major version the client runs: ${CHAT_VERSIONS.join(", ")} (any other: 404).`, example: "v7" });
const runIdParam = z.string().openapi({ param: { name: "runId", in: "path" }, description: "The chat's id: the run's id.", example: "run_abcdefghijklmnopqrstuvwxyz" });

/** The POST's run: its body's `id` (the body is read again by the route's validator). */
async function bodyRunId(c: Context<AppEnv>): Promise<string | undefined> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw invalidRequest("Invalid request body.", [{ path: "", message: "Must be a JSON object (the AI SDK transport's body)." }]);
  }
  const id = typeof body === "object" && body !== null ? (body as { id?: unknown }).id : undefined;
  if (typeof id !== "string" || id === "") throw invalidRequest("Invalid request body.", [{ path: "id", message: "Required: the chat's id, which is the run's id." }]);
  return id;
}

const pathRunId = async (c: Context<AppEnv>): Promise<string | undefined> => c.req.param("runId");

const uiStream = {
  description: "The UI message stream (`x-vercel-ai-ui-message-stream: v1`): one `data: <chunk JSON>` line a chunk, `data: [DONE]` at the end.",
  content: { "text/event-stream": { schema: z.string() } },
};

export const chatPostRoute = createRoute({
  method: "post",
  path: "/{v}/chat",
  summary: "AI SDK chat: send the chat's last message (a continue, a queued message, an answer, an approval, a regenerate) and stream the answer",
  description:
    "The body is DefaultChatTransport's `{ id, messages, trigger, messageId? }`; id is the chat's (its first run's) id and only the last message is read; " +
    "the chat acts on the run it follows (its first run, or the newest fork its Regenerates made). " +
    "A user message continues a finished or cancelled run, is queued on a running one (mode queue), or answers a waiting ask; an assistant message answers the waiting call " +
    "from its tool part (output-available / output-error, approval-responded, a client toolset's parts); regenerate-message retries a failed run, else forks the run at the step " +
    "before the last message kept and the chat goes on in the fork (403 for a run token of a run with no subject: the fork is the subject's run). Anything else is 409.",
  middleware: [requireChatVersion(), requireRun({ runId: bodyRunId })] as const,
  request: {
    params: z.object({ v: versionParam }),
    body: { required: true, content: { "application/json": { schema: chatRequestSchema } } },
  },
  responses: { 200: uiStream, ...errors(400, 401, 402, 403, 404, 409, 413, 429) },
});

export const chatStreamRoute = createRoute({
  method: "get",
  path: "/{v}/chat/{runId}/stream",
  summary: "AI SDK chat: resume the stream of the run the chat follows, while it runs (the current assistant message from its start, the step's text so far, then live)",
  middleware: [requireChatVersion(), requireRun({ runId: pathRunId })] as const,
  request: { params: z.object({ v: versionParam, runId: runIdParam }) },
  responses: { 200: uiStream, 204: { description: "The run is not running: nothing to resume." }, ...errors(401, 404, 429) },
});

export const chatMessagesSchema = z
  .array(
    z.looseObject({
      id: z.string(),
      role: z.enum(["user", "assistant"]),
      parts: z.array(z.looseObject({ type: z.string() })),
      metadata: z.unknown().optional(),
    }),
  )
  .openapi("ChatUIMessages");

export const chatMessagesRoute = createRoute({
  method: "get",
  path: "/{v}/chat/{runId}/messages",
  summary: "AI SDK chat: the chat's history as UIMessage[] (to hydrate useChat), with the ids the stream and the page used",
  middleware: [requireChatVersion(), requireRun({ runId: pathRunId })] as const,
  request: { params: z.object({ v: versionParam, runId: runIdParam }) },
  responses: { 200: { description: "The chat's messages.", content: { "application/json": { schema: chatMessagesSchema } } }, ...errors(401, 404, 429) },
});

export const chatCancelRoute = createRoute({
  method: "post",
  path: "/{v}/chat/{runId}/cancel",
  summary: "AI SDK chat: Stop — cancel the run the chat follows (its first run, or the newest fork its Regenerates made)",
  description: "As POST /v1/runs/{id}/cancel on that run: 202 with its view (a run that already ended is unchanged). The chat takes the next message (a cancelled run continues).",
  middleware: [requireChatVersion(), requireRun({ runId: pathRunId })] as const,
  request: { params: z.object({ v: versionParam, runId: runIdParam }) },
  responses: { 202: json(runViewSchema, "Cancelled (a run that already ended is unchanged)."), ...errors(401, 404, 429) },
});
