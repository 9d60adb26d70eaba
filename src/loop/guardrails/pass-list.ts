// The passes a call's `tool-call` event carries (`guardrailsPassed`), shared from call to call:
// the calls of a run mostly pass the same data checks with the same reasons (a regex's and a deny
// list's reasons never change, a size check's change with the input's length), so a pass equal to
// the one at its place on the previous call's list is that very object, and a list equal to the
// previous one is that very list. Both are frozen: nothing changes a list once it is on an event,
// so the event log makes its JSON once per list and splices it into each event's text
// (durable/events/log/event-text.ts) instead of writing the same characters with every call.
// What an event holds and its stored text are the same as with a list of its own (BENCHMARKS.md, issue 50).
import type { GuardrailPass } from "./guardrail-types";

/** The pass `name` / `reason` for place `at` of a list being made: the previous list's, when it is the same. */
export function sharedPass(previous: readonly GuardrailPass[] | undefined, at: number, name: string, reason: string): GuardrailPass {
  const kept = previous?.[at];
  return kept !== undefined && kept.name === name && kept.reason === reason ? kept : Object.freeze({ name, reason });
}

/** `list` once made (its passes from sharedPass): the previous list when it holds the same passes, else `list` itself, frozen. */
export function sharedList(previous: readonly GuardrailPass[] | undefined, list: GuardrailPass[]): readonly GuardrailPass[] {
  if (previous !== undefined && previous.length === list.length) {
    let same = true;
    for (let i = 0; i < list.length && same; i++) same = list[i] === previous[i];
    if (same) return previous;
  }
  return Object.freeze(list);
}
