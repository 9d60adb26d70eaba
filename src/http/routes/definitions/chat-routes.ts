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
import { errors } from "./run-routes";

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
  summary: "AI SDK chat: send the chat's last message (a continue, a queued message, an answer, an approval, a retry) and stream the answer",
  description:
    "The body is DefaultChatTransport's `{ id, messages, trigger, messageId? }`; id is the run's id and only the last message is read. " +
    "A user message continues a finished run, is queued on a running one (mode queue), or answers a waiting ask; an assistant message answers the waiting call " +
    "from its tool part (output-available / output-error, approval-responded, a client toolset's parts); regenerate-message retries a failed run. Anything else is 409.",
  middleware: [requireChatVersion(), requireRun({ runId: bodyRunId })] as const,
  request: {
    params: z.object({ v: versionParam }),
    body: { required: true, content: { "application/json": { schema: chatRequestSchema } } },
  },
  responses: { 200: uiStream, ...errors(400, 401, 402, 404, 409, 413, 429) },
});

export const chatStreamRoute = createRoute({
  method: "get",
  path: "/{v}/chat/{runId}/stream",
  summary: "AI SDK chat: resume the stream of a running run (the current assistant message from its start, the step's text so far, then live)",
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
  summary: "AI SDK chat: the run's history as UIMessage[] (to hydrate useChat), with the ids the stream uses",
  middleware: [requireChatVersion(), requireRun({ runId: pathRunId })] as const,
  request: { params: z.object({ v: versionParam, runId: runIdParam }) },
  responses: { 200: { description: "The chat's messages.", content: { "application/json": { schema: chatMessagesSchema } } }, ...errors(401, 404, 429) },
});
