// The loop detectors' running state for one question, fed every message of the question in order
// (the history the loop starts from, then each message it appends), so it is the same after a
// replay, an eviction or an answer as it was when the run first got there: the counts come from
// the journaled history, and an answer, an approval or a retry adds to them, never resets them.
// Each message costs the work of that message alone; the state is bounded (same-call.ts,
// no-progress.ts).
import { canonicalJson } from "../../../lib/text/canonical-json";
import { hash53Number } from "../../../lib/hashing/cyrb53";
import { textOf } from "../../content";
import { isSummaryRecord } from "../../context/context-view";
import { fingerprint } from "../repeat-guard";
import type { ChatMessage, ToolCall } from "../../types";
import { advanceAlternation, type Alternation } from "./alternation";
import { MAX_TRACKED_RESULTS } from "./no-progress";
import { RecentNumbers } from "../../../lib/recent-numbers";
import { countCall, emptySameCall, forgetOldest, type CallKey } from "./same-call";
import { isBlankText, sameNormalizedText } from "./same-text";
import type { LoopCounts } from "./loop-policy";

export type LoopTracker = {
  /** Feeds the next message of the question. */
  observe(message: ChatMessage): void;
  /** The counts as of the newest assistant turn fed (all 0 before one): one object, updated in place by each turn. */
  readonly counts: LoopCounts;
};

/** Fingerprints this long or shorter are kept as they are: hashing them would cost more than it saves. */
const SHORT_FINGERPRINT = 96;

/**
 * A call's key: its fingerprint — the very string the repeated-call guard then counts by (made once
 * per call: repeat-guard.ts), whose hash the runtime keeps with it — or, when long, the
 * fingerprint's hash as a number (53 bits; no text made of it).
 */
const keyOf = (call: ToolCall): CallKey => {
  const print = fingerprint(call);
  return print.length <= SHORT_FINGERPRINT ? print : hash53Number(print);
};

const NO_CALLS: readonly ToolCall[] = Object.freeze([]);

/**
 * `counted(call)`: whether a call counts toward the same-call and alternation detectors. Actions
 * of a client toolset do not (a screen or a page changes under the same input, as for the
 * repeated-call guard); their results still count toward no-progress. Undefined: every call
 * counts (a run with no client toolset: loop-state.ts).
 *
 * The state is kept in place — the call counts, the results seen, the alternating run, the counts
 * — so a turn allocates nothing of the tracker's own (inside workerd a step's garbage costs more
 * than its work: BENCHMARKS.md, issue 50, 2026-12-06 23:00–00:25 UTC).
 */
export function createLoopTracker(counted?: (call: ToolCall) => boolean): LoopTracker {
  const calls = emptySameCall();
  // The same-text detector's state (same-text.ts): the newest turn's text as written (compared
  // normalised), and its run; "" and 0 after a turn without text.
  let lastText = "";
  let textRun = 0;
  const alternation: Alternation = { last: "", before: "", run: 0 };
  // The results' hashes seen (no-progress.ts), as numbers in typed arrays: no object per result.
  const progress = new RecentNumbers(MAX_TRACKED_RESULTS);
  // Turns in a row that learned nothing (the no-progress count: no-progress.ts).
  let stale = 0;
  // The newest turn learned something (a new result, a message of the person's); false before any turn.
  let fresh = false;
  let turns = 0;
  const counts: LoopCounts = { sameCall: 0, sameText: 0, alternation: 0, noProgress: 0 };
  return {
    observe(message) {
      if (message.role === "assistant") {
        if (isSummaryRecord(message)) return;
        const before = fresh;
        if (turns > 0) stale = fresh ? 0 : stale + 1;
        turns++;
        fresh = false;
        // The turn's counted calls, in call order: each counted (same-call) and taken in turn (alternation).
        let sameCall = 0;
        let keys = 0;
        const turnCalls = message.toolCalls ?? NO_CALLS;
        // An index, not for-of: no iterator where V8 does not optimise the loop away.
        for (let n = 0; n < turnCalls.length; n++) {
          const call = turnCalls[n]!;
          if (counted !== undefined && !counted(call)) continue;
          const key = keyOf(call);
          sameCall = Math.max(sameCall, countCall(calls, key));
          advanceAlternation(alternation, key);
          keys++;
        }
        if (keys > 0) forgetOldest(calls);
        // The same-text run (same-text.ts): text compared normalised, and only when the run could go on (no new result before); a turn without text ends it.
        const text = textOf(message.content);
        if (isBlankText(text)) {
          lastText = "";
          textRun = 0;
        } else {
          textRun = !before && textRun > 0 && sameNormalizedText(lastText, text) ? textRun + 1 : 1;
          lastText = text;
        }
        counts.sameCall = sameCall;
        counts.sameText = textRun;
        counts.alternation = keys > 0 ? alternation.run : 0;
        counts.noProgress = stale;
        return;
      }
      if (message.role === "user") {
        fresh = true;
        return;
      }
      const content = typeof message.content === "string" ? message.content : canonicalJson(message.content);
      // An error and a result of the same text are different results.
      if (progress.add(hash53Number(content, message.isError === true ? 1 : 0))) fresh = true;
    },
    get counts() {
      return counts;
    },
  };
}
