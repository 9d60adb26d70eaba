// The answer to a loop guard's ask (src/loop/guards/loops/loop-answer.ts), inside the answer's
// transaction: "go on" starts the next segment with the ask's id approved, so the turn's calls run;
// "stop" ends the run with stoppedBy "loop", its open calls answered "Not run: loop."; anything
// else answers the open calls with the person's words and starts the next segment.
import { LOOP_GUARD_ASK, loopAnswerOf, toldReplies } from "../../../loop";
import { closeOpenCalls } from "../../../loop/history";
import { textOf } from "../../../loop/content";
import type { AnswerBody, Waiting } from "../../../api/types";
import type { ChatMessage } from "../../../loop/types";
import type { EngineContext } from "../../engine/engine-context";
import { emitEvent } from "../../events/log/emit-event";
import { recordStop } from "./run-stop";
import { saveSegmentResult, type Segment } from "../store/segment-store";
import { type RunRow } from "../store/run-store";

export function isLoopGuardAsk(waiting: Waiting): boolean {
  return waiting.kind === "ask" && waiting.name === LOOP_GUARD_ASK;
}

type StartSegment = (engine: EngineContext, run: RunRow, messages: ChatMessage[], approvals: Record<string, boolean>, stepLimit: number, answered?: string) => void;

function lastText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "assistant") return textOf(messages[i]!.content);
  return "";
}

export function answerLoopGuard(engine: EngineContext, run: RunRow, segment: Segment, base: ChatMessage[], body: AnswerBody, startSegment: StartSegment): void {
  const choice = loopAnswerOf(body.content!);
  // The answer is no call's result (nothing in the history holds it): the event carries it, for the views that show it (a chat, A2A).
  const answered = () => emitEvent(engine, { type: "answered", callId: body.callId, content: body.content!, ...(body.messageId === undefined ? {} : { messageId: body.messageId }) });
  if (choice === "go-on") {
    startSegment(engine, run, base, { ...segment.approvals, [body.callId]: true }, run.stepLimit, body.callId);
    answered();
  } else if (choice === "tell") {
    startSegment(engine, run, [...base, ...toldReplies(base, body.content!)], segment.approvals, run.stepLimit, body.callId);
    answered();
  } else {
    answered();
    const closed = closeOpenCalls(base, "loop");
    saveSegmentResult(engine.ctx.storage.sql, segment.n, closed);
    recordStop(engine, { status: "finished", stoppedBy: "loop", waiting: null, finalText: lastText(closed) }, "end");
  }
}
