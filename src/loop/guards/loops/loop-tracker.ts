// The loop detectors' running state for one question, fed every message of the question in order
// (the history the loop starts from, then each message it appends), so it is the same after a
// replay, an eviction or an answer as it was when the run first got there: the counts come from
// the journaled history, and an answer, an approval or a retry adds to them, never resets them.
// Each message costs the work of that message alone; the state is bounded (same-call.ts,
// no-progress.ts).
import { canonicalJson } from "../../../lib/canonical-json";
import { hash53 } from "../../../lib/cyrb53";
import { textOf } from "../../content";
import { isSummaryRecord } from "../../context/context-view";
import { fingerprint } from "../repeat-guard";
import type { ChatMessage, ToolCall } from "../../types";
import { emptyAlternation, nextAlternationTurn, type AlternationState } from "./alternation";
import { emptyNoProgress, endTurn, seeResult, type NoProgressState } from "./no-progress";
import { emptySameCall, nextSameCall, type SameCallState } from "./same-call";
import { emptySameText, nextSameText, normalizeText, type SameTextState } from "./same-text";
import type { LoopCounts } from "./loop-policy";

export type LoopTracker = {
  /** Feeds the next message of the question. */
  observe(message: ChatMessage): void;
  /** The counts as of the newest assistant turn fed (all 0 before one). */
  readonly counts: LoopCounts;
};

/** Fingerprints this long or shorter are kept as they are: hashing them would cost more than it saves. */
const SHORT_FINGERPRINT = 96;

const keyOf = (call: ToolCall): string => {
  const print = fingerprint(call);
  return print.length <= SHORT_FINGERPRINT ? print : hash53(print);
};

const ZERO: LoopCounts = { sameCall: 0, sameText: 0, alternation: 0, noProgress: 0 };

/**
 * `counted(call)`: whether a call counts toward the same-call and alternation detectors. Actions
 * of a client toolset do not (a screen or a page changes under the same input, as for the
 * repeated-call guard); their results still count toward no-progress.
 */
export function createLoopTracker(counted: (call: ToolCall) => boolean): LoopTracker {
  let calls: SameCallState = emptySameCall();
  let text: SameTextState = emptySameText;
  let alternation: AlternationState = emptyAlternation;
  let progress: NoProgressState = emptyNoProgress();
  // The newest turn learned something (a new result, a message of the person's); false before any turn.
  let fresh = false;
  let turns = 0;
  let counts = ZERO;
  return {
    observe(message) {
      if (message.role === "assistant") {
        if (isSummaryRecord(message)) return;
        const before = fresh;
        if (turns > 0) progress = endTurn(progress, fresh);
        turns++;
        fresh = false;
        const prints = (message.toolCalls ?? []).filter(counted).map(keyOf);
        const sameCall = nextSameCall(calls, prints);
        calls = sameCall.state;
        text = nextSameText(text, normalizeText(textOf(message.content)), before);
        alternation = nextAlternationTurn(alternation, prints);
        counts = { sameCall: sameCall.count, sameText: text.run, alternation: prints.length > 0 ? alternation.run : 0, noProgress: progress.stale };
        return;
      }
      if (message.role === "user") {
        fresh = true;
        return;
      }
      const content = typeof message.content === "string" ? message.content : canonicalJson(message.content);
      // An error and a result of the same text are different results.
      const seen = seeResult(progress, hash53(content, message.isError === true ? 1 : 0));
      progress = seen.state;
      if (seen.fresh) fresh = true;
    },
    get counts() {
      return counts;
    },
  };
}
