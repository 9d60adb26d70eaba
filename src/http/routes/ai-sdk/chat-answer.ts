// A chat route's answer: the events of the run the chat follows, read through the one watch from
// where the plan says, mapped to one assistant message's UI stream (./chat-stream.ts).
import type { Context } from "hono";
import { chunkState, type Begin } from "../../../api/ai-sdk/chunk-state";
import { chatCaps } from "../../../api/ai-sdk/versions";
import { toolResultsOf } from "../../../api/ai-sdk/tool-output";
import { STEP_TEXT_HEADER, type ChatMarks } from "../../../api/rpc/run-rpc";
import type { AppEnv } from "../../app-env";
import { unwrap } from "../../outcome";
import type { RunStub } from "../../run-stub";
import { openRunEvents } from "../runs/run-watch";
import { CHAT_STREAM_HEADERS, chatStream } from "./chat-stream";
import { withKeepAlive } from "../../../lib/sse/sse-keep-alive";

/** Where a stream reads the run's events from, and which message of which turn it sends. */
export type StreamPlan = { after: number; turn: number; k: number; begin: Begin };

/** The message the client holds, from its start (a replay under its id): the turn's first, or the newest split's. */
export function replayOfCurrent(marks: ChatMarks): StreamPlan {
  if (marks.splits === 0) return { after: marks.turnAfter, turn: marks.turn, k: 0, begin: { at: "now" } };
  return { after: marks.splitAt - 1, turn: marks.turn, k: marks.splits - 1, begin: { at: "next-split" } };
}

/**
 * The answer: run `id`'s events after `plan.after`, with the step's text so far when the stream
 * resumes one in flight, mapped to the plan's message. Stops at or before `marks.newest` are
 * history (the run went on from them).
 */
export async function answerStream(c: Context<AppEnv>, chat: { id: string; run: RunStub }, marks: ChatMarks, plan: StreamPlan): Promise<Response> {
  const request = new Request(`https://run.internal/events?after=${plan.after}`, { headers: { Accept: "text/event-stream", [STEP_TEXT_HEADER]: "1" } });
  const events = await openRunEvents(c, chat.id, request, chat.run);
  if (!events.ok || events.body === null) return events;
  // requireChatVersion let only known versions through.
  const caps = chatCaps(c.req.param("v") ?? "")!;
  const state = chunkState({ runId: chat.id, turn: plan.turn, caps, pastThrough: marks.newest, k: plan.k, begin: plan.begin });
  const body = chatStream({ events: events.body, state, loadResults: async () => toolResultsOf(unwrap(await chat.run.messages()).messages) });
  return withKeepAlive(new Response(body, { status: 200, headers: CHAT_STREAM_HEADERS }), c.var.settings.limits.sseKeepAliveSeconds);
}
