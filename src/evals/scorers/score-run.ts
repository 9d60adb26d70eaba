// Every scorer but the rubric on one run, pure: each answers its verdict under its name. The
// rubric needs a model call, which the experiment object makes (src/durable/evals): here it is
// left out, and scoreRun's caller adds the judge's verdicts in the scorers' order.
import type { CaseReference, RunFacts, Score, Scorer } from "../../api/resources/eval-types";
import { costScore, stepsScore, toolCalledScore, toolNotCalledScore } from "./call-scorers";
import { fieldsScore, jsonSchemaScore } from "./output-scorers";
import { scorerName } from "./scorer-name";
import { containsScore, exactScore, regexScore } from "./text-scorers";
import type { Verdict } from "./verdict";

/** A scorer's verdict on `facts`; undefined for the rubric, which is the experiment's call. */
export function verdictOf(scorer: Scorer, facts: RunFacts, reference: CaseReference | undefined): Verdict | undefined {
  const hasFinal = facts.final !== undefined;
  switch (scorer.type) {
    case "exact":
      return exactScore(scorer, facts.finalText, reference);
    case "contains":
      return containsScore(scorer, facts.finalText);
    case "regex":
      return regexScore(scorer, facts.finalText);
    case "json-schema":
      return jsonSchemaScore(scorer, facts.final, hasFinal);
    case "fields":
      return fieldsScore(scorer, facts.final, hasFinal, reference);
    case "tool-called":
      return toolCalledScore(scorer, facts);
    case "tool-not-called":
      return toolNotCalledScore(scorer, facts);
    case "cost":
      return costScore(scorer, facts);
    case "steps":
      return stepsScore(scorer, facts);
    case "rubric":
      return undefined;
  }
}

/**
 * The scores of `facts`, one per scorer in order; `judged` answers each rubric scorer's verdict by
 * its index (the experiment's journaled judge calls), undefined while it has none.
 */
export function scoreRun(scorers: readonly Scorer[], facts: RunFacts, reference: CaseReference | undefined, judged: (index: number) => Verdict | undefined): Score[] {
  return scorers.map((scorer, index) => {
    const verdict = verdictOf(scorer, facts, reference) ?? judged(index) ?? { score: null, reason: "Not judged." };
    return { scorer: scorerName(scorer), ...verdict };
  });
}
