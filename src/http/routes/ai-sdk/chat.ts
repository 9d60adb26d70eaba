// /v1/ai-sdk/{v}/chat: the AI SDK's DefaultChatTransport talking to a run (docs/api.md "AI SDK
// chat"). A translation, never a second engine: the POST does what POST /v1/runs/{id}/messages,
// /answer and /retry do, through the same functions (../runs/run-actions.ts), then streams the run's own
// events mapped to UI message chunks (src/api/ai-sdk). What each route streams and why: README.md.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { chatAction, type IncomingMessage } from "../../../api/ai-sdk/incoming-action";
import { chunkState } from "../../../api/ai-sdk/event-chunks";
import { historyMessages, messageIdOf } from "../../../api/ai-sdk/history-messages";
import { toolResultsOf } from "../../../api/ai-sdk/tool-output";
import { chatCaps, type ChatCaps } from "../../../api/ai-sdk/versions";
import { STEP_TEXT_HEADER, type ChatMarks } from "../../../api/rpc/run-rpc";
import { answerBodySchema, continueBodySchema } from "../../../api/schemas/person/answer-schemas";
import type { AppEnv } from "../../app-env";
import { ApiException, invalidRequest, validationHook } from "../../errors";
import { unwrap } from "../../outcome";
import { chatMessagesRoute, chatPostRoute, chatStreamRoute } from "../definitions/chat-routes";
import { answerRun, retryRun, sendMessage } from "../runs/run-actions";
import { openRunEvents } from "../runs/run-watch";
import { CHAT_STREAM_HEADERS, chatStream } from "./chat-stream";

function capsOf(c: Context<AppEnv>): ChatCaps {
  // requireChatVersion let only known versions through.
  return chatCaps(c.req.param("v") ?? "")!;
}

/** A body this route built for another route's schema: checked by that schema, its issues named as the chat's. */
function checked<T>(result: { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }): T {
  if (result.success) return result.data;
  throw invalidRequest("Invalid request body.", result.error.issues.map((issue) => ({ path: ["messages", ...issue.path].map(String).join("."), message: issue.message })));
}

/**
 * The answer: the run's events after `after` (the message's start), with the step's text so far
 * when the stream resumes one in flight, mapped under the turn's message id.
 */
async function answerStream(c: Context<AppEnv>, runId: string, marks: ChatMarks, after: number): Promise<Response> {
  const request = new Request(`https://run.internal/events?after=${after}`, { headers: { Accept: "text/event-stream", [STEP_TEXT_HEADER]: "1" } });
  const events = await openRunEvents(c, runId, request);
  if (!events.ok || events.body === null) return events;
  const state = chunkState(messageIdOf(runId, marks.turn), capsOf(c), marks.newest);
  const run = c.var.run;
  const body = chatStream({ events: events.body, state, loadResults: async () => toolResultsOf(unwrap(await run.messages()).messages) });
  return new Response(body, { status: 200, headers: CHAT_STREAM_HEADERS });
}

export function chatApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(chatPostRoute, async (c) => {
    const request = c.req.valid("json");
    const caps = capsOf(c);
    const message = request.messages.at(-1)! as IncomingMessage;
    // Read before the action: the turn's start and the stops that are history then.
    const { run, marks } = unwrap(await c.var.run.chatMarks());
    const action = chatAction({ message, trigger: request.trigger ?? "submit-message", run, caps });
    // Where the answer's stream starts: the turn's start, unless the client continues its own
    // assistant message (an answer given by a tool part): then after what it already holds.
    let after = marks.turnAfter;
    switch (action.kind) {
      case "refused":
        throw new ApiException(action.status, action.message, action.issues === undefined ? {} : { issues: action.issues });
      case "message":
        await sendMessage(c, checked(continueBodySchema.safeParse({ content: action.content, mode: "queue" })));
        break;
      case "answer":
        await answerRun(c, checked(answerBodySchema.safeParse(action.body)));
        if (message.role === "assistant") after = marks.newest;
        break;
      case "retry":
        await retryRun(c);
        break;
    }
    return answerStream(c, run.id, marks, after) as never;
  });

  app.openapi(chatStreamRoute, async (c) => {
    const { run, marks } = unwrap(await c.var.run.chatMarks());
    if (run.status !== "running") return c.body(null, 204);
    return answerStream(c, run.id, marks, marks.turnAfter) as never;
  });

  app.openapi(chatMessagesRoute, async (c) => {
    const { run, history } = unwrap(await c.var.run.chatHistory());
    return c.json(historyMessages({ runId: run.id, status: run.status, caps: capsOf(c), history }), 200);
  });

  return app;
}
