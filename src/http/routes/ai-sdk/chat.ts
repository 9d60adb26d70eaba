// /v1/ai-sdk/{v}/chat: the AI SDK's DefaultChatTransport talking to a run (docs/api.md "AI SDK
// chat"). A translation, never a second engine: the POST does what POST /v1/runs/{id}/messages,
// /answer, /retry and /fork do, through the same functions (../runs/run-actions.ts), on the run the
// chat follows (./chat-runs.ts), then streams the run's own events mapped to UI message chunks
// (src/api/ai-sdk). What each route streams and why: README.md.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { chatAction, type IncomingMessage } from "../../../api/ai-sdk/incoming-action";
import { chatCaps, type ChatCaps } from "../../../api/ai-sdk/versions";
import type { ChatMarks } from "../../../api/rpc/run-rpc";
import { answerBodySchema, continueBodySchema } from "../../../api/schemas/person/answer-schemas";
import type { AppEnv } from "../../app-env";
import { ApiException, invalidRequest, validationHook } from "../../errors";
import { unwrap } from "../../outcome";
import { chatCancelRoute, chatMessagesRoute, chatPostRoute, chatStreamRoute } from "../definitions/chat-routes";
import { answerRun, sendMessageTo } from "../runs/run-actions";
import { answerStream, replayOfCurrent, type StreamPlan } from "./chat-answer";
import { regenerate } from "./chat-regenerate";
import { chatEntriesOf, chatRuns } from "./chat-runs";

function capsOf(c: Context<AppEnv>): ChatCaps {
  // requireChatVersion let only known versions through.
  return chatCaps(c.req.param("v") ?? "")!;
}

/** A body this route built for another route's schema: checked by that schema, its issues named as the chat's. */
function checked<T>(result: { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }): T {
  if (result.success) return result.data;
  throw invalidRequest("Invalid request body.", result.error.issues.map((issue) => ({ path: ["messages", ...issue.path].map(String).join("."), message: issue.message })));
}

export function chatApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(chatPostRoute, async (c) => {
    const request = c.req.valid("json");
    const caps = capsOf(c);
    const message = request.messages.at(-1)! as IncomingMessage;
    const runs = await chatRuns(c, request.id);
    // Read before the action: the turn's start and the stops that are history then.
    const { run, marks } = unwrap(await runs.run.chatMarks());
    const action = chatAction({ message, trigger: request.trigger ?? "submit-message", run, caps });
    // What the answer streams: the message the client holds (replayed, or continued after the
    // answer a tool part gave), a new turn's, or the one the person's message begins.
    let plan: StreamPlan = replayOfCurrent(marks);
    switch (action.kind) {
      case "refused":
        throw new ApiException(action.status, action.message, action.issues === undefined ? {} : { issues: action.issues });
      case "message": {
        const body = { content: action.content, mode: "queue", ...(action.messageId === undefined ? {} : { messageId: action.messageId }) };
        const sent = await sendMessageTo(c, runs.run, checked(continueBodySchema.safeParse(body)));
        // Taken by a running run: its message begins where the run takes it. Else a continue: the next
        // turn (of a run that was running when the marks were read, and stopped since: read again).
        if (sent.message !== undefined) plan = { after: marks.newest, turn: marks.turn, k: marks.splits, begin: { at: "message", id: sent.message.id } };
        else {
          const now: ChatMarks = run.status === "running" ? unwrap(await runs.run.chatMarks()).marks : marks;
          plan = { after: now.turnAfter, turn: now.turn, k: 0, begin: { at: "content" } };
        }
        break;
      }
      case "answer":
        await answerRun(c, checked(answerBodySchema.safeParse(action.body)), runs.run);
        if (message.role === "assistant") plan = { after: marks.newest, turn: marks.turn, k: marks.splits, begin: { at: "now" } };
        else if (action.body.messageId !== undefined) plan = { after: marks.newest, turn: marks.turn, k: marks.splits, begin: { at: "message", id: action.body.messageId } };
        break;
      case "regenerate":
        return (await regenerate(c, runs, { run, marks, kept: message.id, target: request.messageId, caps })) as never;
    }
    return answerStream(c, runs, marks, plan) as never;
  });

  app.openapi(chatStreamRoute, async (c) => {
    const runs = await chatRuns(c, c.req.valid("param").runId);
    const { run, marks } = unwrap(await runs.run.chatMarks());
    if (run.status !== "running") return c.body(null, 204);
    return answerStream(c, runs, marks, replayOfCurrent(marks)) as never;
  });

  app.openapi(chatMessagesRoute, async (c) => {
    const runs = await chatRuns(c, c.req.valid("param").runId);
    const entries = await chatEntriesOf(c, runs, capsOf(c));
    return c.json(
      entries.map((entry) => entry.message),
      200,
    );
  });

  app.openapi(chatCancelRoute, async (c) => {
    const runs = await chatRuns(c, c.req.valid("param").runId);
    return c.json(unwrap(await runs.run.cancel()), 202);
  });

  return app;
}
