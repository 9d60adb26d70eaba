// Two calls taking turns, A-B-A-B: each alone may stay under the same-call count, together they
// are a loop. The count is the length of the alternating run at the end of the question's calls
// (A-B-A-B is 4); a run needs two different calls, so a lone call or a repeat of one is 1.

import type { CallKey } from "./same-call";

export type AlternationState = { readonly last: CallKey; readonly before: CallKey; readonly run: number };

export const emptyAlternation: AlternationState = { last: "", before: "", run: 0 };

/** The state after one more call (its fingerprint). */
export function nextAlternation(state: AlternationState, call: CallKey): AlternationState {
  if (state.run === 0) return { last: call, before: "", run: 1 };
  if (call === state.last) return { last: call, before: state.before, run: 1 };
  const run = state.run >= 2 && call === state.before ? state.run + 1 : 2;
  return { last: call, before: state.last, run };
}

/** The state after a turn's calls, in call order. */
export function nextAlternationTurn(state: AlternationState, calls: readonly CallKey[]): AlternationState {
  return calls.reduce(nextAlternation, state);
}
