// Two calls taking turns, A-B-A-B: each alone may stay under the same-call count, together they
// are a loop. The count is the length of the alternating run at the end of the question's calls
// (A-B-A-B is 4); a run needs two different calls, so a lone call or a repeat of one is 1.

import type { CallKey } from "./same-call";

/** The alternating run's state as the question's tracker keeps it, changed in place (no object per call). */
export type Alternation = { last: CallKey; before: CallKey; run: number };

/** One more call (its fingerprint), in place. */
export function advanceAlternation(state: Alternation, call: CallKey): void {
  if (state.run === 0) {
    state.last = call;
    state.before = "";
    state.run = 1;
  } else if (call === state.last) state.run = 1;
  else {
    state.run = state.run >= 2 && call === state.before ? state.run + 1 : 2;
    state.before = state.last;
    state.last = call;
  }
}
