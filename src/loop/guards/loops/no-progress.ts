// No new information for K steps: every tool result of those turns was one the question had seen
// already (hashed), and the person said nothing new. The state here is the hashes seen (the newest
// MAX_TRACKED_RESULTS of them); the count of turns in a row that learned nothing is the tracker's
// (loop-tracker.ts). The set is
// updated in place (no copy of it per result). The oldest hash is found by one iterator kept for
// the question's life (why: same-call.ts). The question's tracker keeps its numbers in a
// RecentNumbers (lib/recent-numbers.ts: no object per number), which gives isNewResult's answers
// (test/lib/recent-numbers.test.ts).

/** Distinct results remembered per question; the oldest is forgotten past this. */
export const MAX_TRACKED_RESULTS = 1024;

/** A result's hash (loop-tracker.ts: a number, cheaper to make and to look up than its text). */
export type ResultKey = string | number;

export type NoProgressState = { readonly seen: Set<ResultKey>; readonly oldest: Iterator<ResultKey> };

export const emptyNoProgress = (): NoProgressState => {
  const seen = new Set<ResultKey>();
  return { seen, oldest: seen.values() };
};

/** Whether a result (its hash) is new to the question, remembering it in place (the tracker's way: no object per result). */
export function isNewResult(state: NoProgressState, hash: ResultKey): boolean {
  const { seen } = state;
  const size = seen.size;
  // One look-up: a hash seen before leaves the set as it was.
  seen.add(hash);
  if (seen.size === size) return false;
  if (seen.size > MAX_TRACKED_RESULTS) seen.delete(state.oldest.next().value!);
  return true;
}
