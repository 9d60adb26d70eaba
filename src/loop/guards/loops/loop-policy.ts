// What a tripped loop detector does: at which count each policy applies, per detector, and the
// verdict of a turn (the most severe policy any detector reached). `warn`: a note to the model;
// `ask`: the run waits for the person (go on, stop, or tell it something); `stop`: the run ends
// with reason `loop`. Pure data and functions; the defaults are documented in docs/guardrails.md.

export type LoopDetector = "sameCall" | "sameText" | "alternation" | "noProgress";
export type LoopPolicy = "warn" | "ask" | "stop";

/** The count at which each policy applies; 0 turns it off. */
export type LoopLevels = { warn?: number; ask?: number; stop?: number };

/** A run's (or an agent's) loop guards: each detector's levels over the defaults. */
export type LoopGuards = { [D in LoopDetector]?: LoopLevels };

export const LOOP_DETECTORS: readonly LoopDetector[] = ["sameCall", "sameText", "alternation", "noProgress"];
export const LOOP_POLICIES: readonly LoopPolicy[] = ["warn", "ask", "stop"];

/**
 * The defaults. sameCall warns at 3 (opencode asks and Cline warns at 3), and the built-in
 * repeated-call answer and the doom-loop final turn (repeat-guard.ts) bound it beyond. sameText
 * (Gemini CLI halts on repeated text) and alternation stop; noProgress (OpenHands looks back 20
 * events, about ten steps) asks the person at 8 steps that learned nothing.
 */
export const DEFAULT_LOOP_GUARDS: { readonly [D in LoopDetector]: Required<LoopLevels> } = {
  sameCall: { warn: 3, ask: 0, stop: 0 },
  sameText: { warn: 3, ask: 0, stop: 5 },
  alternation: { warn: 4, ask: 0, stop: 8 },
  noProgress: { warn: 4, ask: 8, stop: 0 },
};

export type LoopCounts = { [D in LoopDetector]: number };

/** One detector that reached a level on a turn: its count, the level's threshold and policy. */
export type LoopTrip = { detector: LoopDetector; count: number; threshold: number; policy: LoopPolicy };

const SEVERITY: Record<LoopPolicy, number> = { warn: 1, ask: 2, stop: 3 };

export function levelsOf(guards: LoopGuards, detector: LoopDetector): Required<LoopLevels> {
  return { ...DEFAULT_LOOP_GUARDS[detector], ...guards[detector] };
}

/** Each detector's levels over the defaults, and the lowest level on: worked out once per guards object, not every turn. */
type Resolved = { levels: { readonly [D in LoopDetector]: Required<LoopLevels> }; lowest: { readonly [D in LoopDetector]: number } };
const resolved = new WeakMap<LoopGuards, Resolved>();

function resolve(guards: LoopGuards): Resolved {
  let known = resolved.get(guards);
  if (known === undefined) {
    const levels = Object.fromEntries(LOOP_DETECTORS.map((detector) => [detector, levelsOf(guards, detector)])) as Resolved["levels"];
    const lowest = Object.fromEntries(LOOP_DETECTORS.map((detector) => [detector, Math.min(...LOOP_POLICIES.map((policy) => levels[detector][policy]).filter((threshold) => threshold > 0))])) as Resolved["lowest"];
    known = { levels, lowest };
    resolved.set(guards, known);
  }
  return known;
}

const NO_TRIPS: readonly LoopTrip[] = Object.freeze([]);

/** Each detector's lowest level on (Infinity when all its levels are off): a count below it trips nothing. Worked out once per loop (loop-state.ts). */
export function lowestLevels(guards: LoopGuards): LoopCounts {
  return { ...resolve(guards).lowest };
}

/** True when no count has reached its detector's lowest level: the turn trips nothing (most turns). */
export function belowEvery(counts: LoopCounts, lowest: LoopCounts): boolean {
  return counts.sameCall < lowest.sameCall && counts.sameText < lowest.sameText && counts.alternation < lowest.alternation && counts.noProgress < lowest.noProgress;
}

/** The detectors that reached a level, each at its most severe one. A turn below every level (most turns) costs four comparisons. */
export function tripsOf(counts: LoopCounts, guards: LoopGuards): LoopTrip[] {
  const { levels: all, lowest } = resolve(guards);
  if (belowEvery(counts, lowest)) return NO_TRIPS as LoopTrip[];
  const trips: LoopTrip[] = [];
  for (const detector of LOOP_DETECTORS) {
    const levels = all[detector];
    const count = counts[detector];
    let trip: LoopTrip | undefined;
    for (const policy of LOOP_POLICIES) {
      const threshold = levels[policy];
      if (threshold > 0 && count >= threshold) trip = { detector, count, threshold, policy };
    }
    if (trip !== undefined) trips.push(trip);
  }
  return trips;
}

/** The turn's verdict: the most severe policy of its trips. */
export function verdictOf(trips: readonly LoopTrip[]): LoopPolicy | undefined {
  let verdict: LoopPolicy | undefined;
  for (const trip of trips) if (verdict === undefined || SEVERITY[trip.policy] > SEVERITY[verdict]) verdict = trip.policy;
  return verdict;
}

const WHAT: Record<LoopDetector, (count: number) => string> = {
  sameCall: (count) => `made the same tool call with the same input ${count} times`,
  sameText: (count) => `written the same text ${count} steps in a row with no new tool result`,
  alternation: (count) => `alternated between the same two tool calls ${count} times in a row`,
  noProgress: (count) => `learned nothing new for ${count} steps: every tool result was one you had seen`,
};

/** What the trips say, in one sentence: "You have made the same tool call … and …". */
export function tripsText(trips: readonly LoopTrip[]): string {
  return `You have ${trips.map((trip) => WHAT[trip.detector](trip.count)).join(", and ")}.`;
}

/** The note a `warn` adds to the next model request. */
export function warnNote(trips: readonly LoopTrip[]): string {
  return `${tripsText(trips)} This looks like a loop. Do not repeat it: use what you have, try a different approach, or give your answer.`;
}
