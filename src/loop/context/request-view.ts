// What every request of one loop call is built from, kept up to date as the history grows: the
// context view with long tool results cut, the number of turns, and the caller's cache marks in
// the view. Built from scratch on each model call this is several passes and copies of the whole
// history, the bulk of a step's cost on a long run; but within a loop call the history only grows
// at its end, so each new message is looked at once here. A compaction mark moves the start of
// the view: the view is then built again (once per compaction).
//
// It always equals cutLongToolResults(contextView(history), maxToolResultTokens), chars the length
// of its messages' text (textLength of each), turns equals
// turnCount(history) and container containerOf(history) (test/loop/request-view.test.ts checks
// them against those functions).
import { textLength } from "../content";
import { containerIn } from "./container";
import { contextView, isAnsweredTurn, isCompactionMark } from "./context-view";
import { cutLongToolResult } from "./tool-result-cut";
import type { ChatMessage, ContainerRecord } from "../types";

export type RequestView = {
  /** How many messages of the history are in. */
  seen: number;
  /** The view; requests get copies, never this array. */
  messages: ChatMessage[];
  /** Turns of the model in the history (turnCount). */
  turns: number;
  /** Text parts the caller marked `cache: true` in `messages`. */
  callerMarks: number;
  /** The characters of the view's text: textLength of each message's content, summed. */
  chars: number;
  /** The newest execution container of the whole history, compacted turns included (containerOf). */
  container?: ContainerRecord;
};

function marksIn(message: ChatMessage): number {
  if (typeof message.content === "string") return 0;
  let count = 0;
  for (const part of message.content) if (part.type === "text" && part.cache === true) count++;
  return count;
}

/** Brings `view` up to `history` (a view of an earlier, shorter state of the same history), or builds it. */
export function updateRequestView(view: RequestView | undefined, history: ChatMessage[], maxToolResultTokens: number | undefined): RequestView {
  const next: RequestView = view ?? { seen: 0, messages: [], turns: 0, callerMarks: 0, chars: 0 };
  let rebuild = false;
  for (let i = next.seen; i < history.length; i++) {
    const message = history[i]!;
    if (isAnsweredTurn(message)) next.turns++;
    const container = containerIn(message);
    if (container !== undefined) next.container = container;
    // A record or a native compaction with its summary: the view starts anew (see contextView).
    if (isCompactionMark(message)) rebuild = true;
    else if (!rebuild) {
      const cut = cutLongToolResult(message, maxToolResultTokens);
      next.messages.push(cut);
      next.callerMarks += marksIn(cut);
      next.chars += textLength(cut.content);
    }
  }
  next.seen = history.length;
  if (rebuild) {
    next.messages = contextView(history).map((message) => cutLongToolResult(message, maxToolResultTokens));
    next.callerMarks = next.messages.reduce((sum, message) => sum + marksIn(message), 0);
    next.chars = next.messages.reduce((sum, message) => sum + textLength(message.content), 0);
  }
  return next;
}
