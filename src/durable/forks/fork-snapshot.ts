// A fork's state at model step `atStep` read from what its source already stored, without running
// the loop over the prefix (README.md, "The snapshot"). Within a segment the history only grows at
// its end, so the history after step n's turn is a prefix of the segment's stored result: up to the
// n-th model turn and the tool results that follow it. Where that prefix is exactly what a replay
// of the copied entries would reach (no message the prefix leaves out, every call of the turn
// answered by a stored step), it is the fork's history. Where, moreover, the loop carried nothing
// past that history into step n + 1 (no note, reminder, follow-up or final retry: every turn so far
// called tools; no loop guard's verdict on step n, whose warning goes with step n + 1; no compaction before step n + 1; the source did make step n + 1 in this segment), a
// loop started afresh on that history asks what the source asked, and the fork goes on in a segment
// of its own with nothing replayed. Anything else is undefined or not resumable: the caller replays.
import { isSummaryRecord } from "../../loop/context/context-view";
import type { ModelStepValue } from "../../loop";
import type { AssistantMessage, ChatMessage } from "../../loop/types";
import type { Segment } from "../run/store/segment-store";

export type ForkSnapshot = {
  /** The history after model step `local`'s turn and its tool results. */
  history: ChatMessage[];
  /** A loop started afresh on `history` (a segment of its own) asks at step `local` + 1 what the source's loop asked. */
  resumable: boolean;
};

/** Kinds of step whose stored value answers a call of a turn. */
const ANSWERS = ["tool", "reply", "wait"] as const;

/**
 * The snapshot after model step `local` (the segment's own count, from 1) of `segment`, whose
 * result is final (`closed`: the segment ended, or the run is not running). `keys`: every journal
 * key of the segment, without its `s<n>/`; `model`: the stored value of `model/<local>`.
 */
export function snapshotAt(segment: Segment, closed: boolean, local: number, keys: ReadonlySet<string>, model: ModelStepValue): ForkSnapshot | undefined {
  const result = segment.result;
  if (!closed || result === undefined) return undefined;
  // A take of the person's messages: the prefix's replay does not take them (they are not copied).
  for (const key of keys) if (key.startsWith("messages/")) return undefined;
  let seen = 0;
  let at = -1;
  let everyTurnCalled = true;
  for (let i = segment.messages.length; i < result.length; i++) {
    const message = result[i]!;
    if (message.role !== "assistant" || isSummaryRecord(message)) continue;
    seen++;
    if ((message.toolCalls ?? []).length === 0) everyTurnCalled = false;
    if (seen === local) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const calls = (result[at] as AssistantMessage).toolCalls ?? [];
  if (calls.length === 0) return undefined;
  for (const call of calls) if (!ANSWERS.some((kind) => keys.has(`${kind}/${local}/${call.id}`))) return undefined;
  let end = at + 1;
  while (end < result.length && result[end]!.role === "tool") end++;
  if (end - at - 1 !== calls.length) return undefined;
  const resumable = everyTurnCalled && !model.last && keys.has(`model/${local + 1}`) && !keys.has(`compact/${local}`) && !keys.has(`loop/${local}`);
  return { history: result.slice(0, end), resumable };
}
