// Scorers of a run's tool calls and spend: tool-called (the model called the tool, with an input
// holding every leaf of `input` where given), tool-not-called (it never called the tool), cost (it
// spent at most maxUsd) and steps (it made at most `max` model calls).
import type { RunFacts, Scorer } from "../../api/resources/eval-types";
import { canonicalJson } from "../../lib/text/canonical-json";
import type { Verdict } from "./verdict";

type Of<T extends Scorer["type"]> = Extract<Scorer, { type: T }>;

/** True when `input` holds `wanted`: each of its keys, recursively, with an equal value (arrays and scalars whole). */
export function holds(input: unknown, wanted: unknown): boolean {
  if (wanted === null || typeof wanted !== "object" || Array.isArray(wanted)) return canonicalJson(input) === canonicalJson(wanted);
  if (input === null || typeof input !== "object" || Array.isArray(input)) return false;
  return Object.entries(wanted).every(([key, value]) => holds((input as Record<string, unknown>)[key], value));
}

export function toolCalledScore(scorer: Of<"tool-called">, facts: RunFacts): Verdict {
  const calls = facts.calls.filter((call) => call.name === scorer.tool);
  if (calls.length === 0) return { score: 0, reason: `${scorer.tool} was never called.` };
  if (scorer.input === undefined) return { score: 1, reason: `${scorer.tool} was called (${calls.length}×).` };
  const match = calls.find((call) => holds(call.input, scorer.input));
  return match === undefined
    ? { score: 0, reason: `${scorer.tool} was called ${calls.length}×, never with ${canonicalJson(scorer.input)}.` }
    : { score: 1, reason: `${scorer.tool} was called with ${canonicalJson(scorer.input)} at step ${match.step}.` };
}

export function toolNotCalledScore(scorer: Of<"tool-not-called">, facts: RunFacts): Verdict {
  const calls = facts.calls.filter((call) => call.name === scorer.tool);
  return calls.length === 0 ? { score: 1, reason: `${scorer.tool} was never called.` } : { score: 0, reason: `${scorer.tool} was called ${calls.length}× (first at step ${calls[0]!.step}).` };
}

export function costScore(scorer: Of<"cost">, facts: RunFacts): Verdict {
  return facts.spentUsd <= scorer.maxUsd ? { score: 1, reason: `Spent $${facts.spentUsd}, at most $${scorer.maxUsd}.` } : { score: 0, reason: `Spent $${facts.spentUsd}, more than $${scorer.maxUsd}.` };
}

export function stepsScore(scorer: Of<"steps">, facts: RunFacts): Verdict {
  return facts.steps <= scorer.max ? { score: 1, reason: `${facts.steps} model calls, at most ${scorer.max}.` } : { score: 0, reason: `${facts.steps} model calls, more than ${scorer.max}.` };
}
