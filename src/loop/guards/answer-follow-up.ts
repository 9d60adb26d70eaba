// A final answer right after a turn with tool work that is not the whole answer gets one more model
// call: an empty one or a stub that announces an answer that never came ("Here they are:"), and
// one shorter than minAnswerChars ("Now let me get the closed PRs too." is not an answer). The call offers no tools
// and ends with a note asking for the whole answer; what it answers stands. Pure functions of the
// history and the options, so a replay decides the same.
import { textOf } from "../content";
import { DEFAULT_MIN_ANSWER_CHARS, type LoopState } from "../loop-state";
import { ASK_TOOL } from "../tool-calls/plan-call";
import { isSummaryRecord } from "../context/context-view";
import type { AssistantMessage, ToolMessage } from "../types";

export const RECOVERY_NOTE = "Your last answer was empty. Answer the person's request now, in full, using the tool results above.";

export function shortAnswerNote(chars: number): string {
  return (
    `Your last answer was ${chars} character${chars === 1 ? "" : "s"} long: too short to be the whole answer to the person's request. ` +
    "Write the whole answer now, in full, using the tool results above. No tools can be called."
  );
}

/** No word at all, or a stub that announces an answer that never came ("Here they are:"). */
export function isNearEmpty(message: AssistantMessage): boolean {
  const text = textOf(message.content).trim();
  return !/[\p{L}\p{N}]/u.test(text) || (text.length < 100 && text.endsWith(":"));
}

function minAnswerChars(state: LoopState): number {
  return state.options.minAnswerChars ?? DEFAULT_MIN_ANSWER_CHARS;
}

/** Shorter than minAnswerChars (never, when it is 0). */
export function isShort(state: LoopState, message: AssistantMessage): boolean {
  return textOf(message.content).trim().length < minAnswerChars(state);
}

/**
 * The turn before this final answer did tool work to report on: a result (not an error) of a call
 * other than an ask, and within the current question (question-start.ts). A person's answer, a
 * denial, a tool that failed or a call the loop refused leave nothing to report, and a short answer
 * may say so.
 */
function followsToolWork(state: LoopState): boolean {
  const results: ToolMessage[] = [];
  // From the answer (the newest message) back to the turn before it; records of compactions are no turns.
  for (let i = state.messages.length - 2; i > state.questionFrom; i--) {
    const message = state.messages[i]!;
    if (message.role === "tool") results.push(message);
    else if (message.role === "user") return false;
    else if (!isSummaryRecord(message)) {
      const asks = new Set((message.toolCalls ?? []).filter((call) => call.name === ASK_TOOL).map((call) => call.id));
      return results.some((result) => result.isError !== true && !asks.has(result.toolCallId));
    }
  }
  return false;
}

/**
 * The note for one more call after this final answer, or undefined when it stands: only right
 * after a turn with tool work, and only once.
 */
export function followUpFor(state: LoopState, message: AssistantMessage): "recovery" | "short" | undefined {
  if (state.followedUp || !followsToolWork(state)) return undefined;
  if (isNearEmpty(message)) return "recovery";
  if (isShort(state, message)) return "short";
  return undefined;
}

/** The length the short-answer note names: the newest turn's text. */
export function answerChars(message: AssistantMessage | undefined): number {
  return message === undefined ? 0 : textOf(message.content).trim().length;
}
