// A final answer after tool work that is not the whole answer gets one more model call: an empty
// one or a stub that announces an answer that never came ("Here they are:"), and one shorter than
// minAnswerChars ("Now let me get the closed PRs too." is not an answer). The call offers no tools
// and ends with a note asking for the whole answer; what it answers stands. Pure functions of the
// history and the options, so a replay decides the same.
import { textOf } from "./content";
import { DEFAULT_MIN_ANSWER_CHARS, type LoopState } from "./loop-state";
import { ASK_TOOL } from "./plan-call";
import type { AssistantMessage } from "./types";

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
 * The current question (question-start.ts) had tool work: a result of a call other than an ask
 * after the user message that asked it (a person's answer is no tool work to report on).
 */
function hadToolWork(state: LoopState): boolean {
  const asks = new Set<string>();
  for (let i = state.questionFrom; i < state.messages.length; i++) {
    const message = state.messages[i]!;
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) if (call.name === ASK_TOOL) asks.add(call.id);
    if (message.role === "tool" && !asks.has(message.toolCallId)) return true;
  }
  return false;
}

/**
 * The note for one more call after this final answer, or undefined when it stands: only after tool
 * work in this question, and only once.
 */
export function followUpFor(state: LoopState, message: AssistantMessage): "recovery" | "short" | undefined {
  if (state.followedUp || !hadToolWork(state)) return undefined;
  if (isNearEmpty(message)) return "recovery";
  if (isShort(state, message)) return "short";
  return undefined;
}

/** The length the short-answer note names: the newest turn's text. */
export function answerChars(message: AssistantMessage | undefined): number {
  return message === undefined ? 0 : textOf(message.content).trim().length;
}
