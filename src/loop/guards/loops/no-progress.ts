// No new information for K steps: every tool result of those turns was one the question had seen
// already (hashed), and the person said nothing new. The state is the hashes seen (the newest
// MAX_TRACKED_RESULTS of them) and the count of turns in a row that learned nothing. The set is
// updated in place (no copy of it per result); its one owner is the question's tracker. The oldest
// hash is found by one iterator kept for the question's life (why: same-call.ts).

/** Distinct results remembered per question; the oldest is forgotten past this. */
export const MAX_TRACKED_RESULTS = 1024;

/** A result's hash (loop-tracker.ts: a number, cheaper to make and to look up than its text). */
export type ResultKey = string | number;

export type NoProgressState = { readonly seen: Set<ResultKey>; readonly oldest: Iterator<ResultKey>; readonly stale: number };

export const emptyNoProgress = (): NoProgressState => {
  const seen = new Set<ResultKey>();
  return { seen, oldest: seen.values(), stale: 0 };
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

/** Whether a result (its hash) is new to the question, and the state that has seen it. */
export function seeResult(state: NoProgressState, hash: ResultKey): { state: NoProgressState; fresh: boolean } {
  return { state, fresh: isNewResult(state, hash) };
}

/** A turn ended: it learned something (`fresh`) or the run of turns that learned nothing grows. The count is `stale`. */
export function endTurn(state: NoProgressState, fresh: boolean): NoProgressState {
  return { seen: state.seen, oldest: state.oldest, stale: fresh ? 0 : state.stale + 1 };
}
