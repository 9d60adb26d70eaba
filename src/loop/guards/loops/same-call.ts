// The same tool call (name + canonical input) made again and again within one question, whatever
// its results: a result that differs each time (a page, a clock, a random id) never hides the loop.
// The state is a count per call fingerprint, kept to the newest MAX_TRACKED_CALLS fingerprints so it
// stays small however long the question runs. It is updated in place (a step must stay cheap: no
// copy of it per turn); its one owner is the question's tracker (loop-tracker.ts).
//
// The oldest fingerprint is found by one iterator over the map kept for the question's life, not
// by a new `keys()` each time: a new iterator walks past every entry deleted since the map last
// compacted (a call made again is deleted and set anew; the forgotten ones are deleted), hundreds
// a turn on a long question, which cost more than the rest of the detectors together
// (BENCHMARKS.md, issue 50). A map's iterator stays live through deletes and growth, and reaches
// what is set after it was made; everything behind it has been forgotten or set again ahead of it.

/** Distinct calls remembered per question; the oldest is forgotten past this. */
export const MAX_TRACKED_CALLS = 512;

/** A call's fingerprint: the text itself when short, else its hash (loop-tracker.ts). */
export type CallKey = string | number;

export type SameCallState = { readonly counts: Map<CallKey, number>; readonly oldest: Iterator<CallKey> };

export const emptySameCall = (): SameCallState => {
  const counts = new Map<CallKey, number>();
  return { counts, oldest: counts.keys() };
};

/**
 * Counts one more call in place and returns its count: the question's tracker feeds each call of a
 * turn as it reads it (no list of the turn's keys, no state object per turn), then forgetOldest.
 */
export function countCall(state: SameCallState, call: CallKey): number {
  const { counts } = state;
  const before = counts.get(call);
  // A call made again is deleted first, so the map's order is the order calls were last made in.
  if (before !== undefined) counts.delete(call);
  const seen = (before ?? 0) + 1;
  counts.set(call, seen);
  return seen;
}

/** Forgets the oldest calls past MAX_TRACKED_CALLS (after a turn's calls were counted). */
export function forgetOldest(state: SameCallState): void {
  while (state.counts.size > MAX_TRACKED_CALLS) state.counts.delete(state.oldest.next().value!);
}
