// An experiment against a baseline (another experiment of the same dataset, or the recordings its
// cases replay), pure: per case, each scorer's score beside the baseline's and the delta, and the
// cost and steps deltas; in total, each scorer's mean over the cases both sides scored, the sums
// of cost and steps, and how many cases regressed, improved or went unscored. A case regressed when
// any of its scores fell, or when the experiment did not score it (skipped, failed, cancelled) while
// the baseline has it (scored it, or holds its recording): a case that lost its result is never
// "no regression". Regressions come first, the largest fall first, then the cases by number.
import type { CaseComparison, CaseState, Comparison, Score, ScoreDelta } from "../api/resources/eval-types";
import { usd } from "../lib/money";

/** One side of a case: its scores, what it spent and how many model calls it made (absent when it never ran). */
export type ComparedSide = { n: number; state: CaseState; scores: readonly Score[]; costUsd?: number; steps?: number; runId?: string };

/** States of a case that ended without a score. */
const UNSCORED: ReadonlySet<CaseState> = new Set(["skipped", "failed", "cancelled"]);

export const unscored = (state: CaseState): boolean => UNSCORED.has(state);

/** Score changes smaller than this are no change (scores of 0..1 written as decimals). */
const EPSILON = 1e-9;

const minus = (a: number | null | undefined, b: number | null | undefined): number | null => (a === null || a === undefined || b === null || b === undefined ? null : a - b);

/** Each scorer's delta: the case's scorers, then any only the baseline has (the case unscored: its score null). */
function scoreDeltas(current: readonly Score[], baseline: readonly Score[]): ScoreDelta[] {
  const before = new Map(baseline.map((score) => [score.scorer, score.score]));
  const deltas = current.map((score) => {
    const was = before.get(score.scorer) ?? null;
    return { scorer: score.scorer, baseline: was, score: score.score, delta: minus(score.score, was) };
  });
  const named = new Set(current.map((score) => score.scorer));
  for (const score of baseline) if (!named.has(score.scorer)) deltas.push({ scorer: score.scorer, baseline: score.score, score: null, delta: null });
  return deltas;
}

/** How far the case's scores fell in all (a positive number; 0 when none fell). */
function fall(comparison: CaseComparison): number {
  return comparison.scores.reduce((sum, score) => sum + (score.delta !== null && score.delta < -EPSILON ? -score.delta : 0), 0);
}

function caseComparison(current: ComparedSide, baseline: ComparedSide | undefined): CaseComparison {
  const scores = scoreDeltas(current.scores, baseline?.scores ?? []);
  const lost = unscored(current.state) && baseline?.state === "done";
  const compared: CaseComparison = {
    n: current.n,
    state: current.state,
    regression: lost || scores.some((score) => score.delta !== null && score.delta < -EPSILON),
    scores,
    costUsd: { baseline: baseline?.costUsd ?? null, new: current.costUsd ?? null, delta: null },
    steps: { baseline: baseline?.steps ?? null, new: current.steps ?? null, delta: minus(current.steps, baseline?.steps) },
  };
  const cost = minus(current.costUsd, baseline?.costUsd);
  compared.costUsd.delta = cost === null ? null : usd(cost);
  if (current.runId !== undefined) compared.runId = current.runId;
  if (baseline?.runId !== undefined) compared.baselineRunId = baseline.runId;
  return compared;
}

function meanDeltas(cases: readonly CaseComparison[], scorers: readonly string[]): ScoreDelta[] {
  return scorers.map((scorer) => {
    const both = cases.flatMap((one) => one.scores.filter((score) => score.scorer === scorer && score.score !== null && score.baseline !== null));
    if (both.length === 0) return { scorer, baseline: null, score: null, delta: null };
    const mean = (pick: (score: ScoreDelta) => number) => both.reduce((sum, score) => sum + pick(score), 0) / both.length;
    const baseline = mean((score) => score.baseline!);
    const score = mean((score) => score.score!);
    return { scorer, baseline, score, delta: score - baseline };
  });
}

export function compare(experimentId: string, baselineName: string, current: readonly ComparedSide[], baseline: readonly ComparedSide[]): Comparison {
  const byCase = new Map(baseline.map((side) => [side.n, side]));
  const cases = current.map((side) => caseComparison(side, byCase.get(side.n)));
  const scorers = [...new Set(cases.flatMap((one) => one.scores.map((score) => score.scorer)))];
  const sums = { costBaseline: 0, costNew: 0, stepsBaseline: 0, stepsNew: 0 };
  for (const one of cases) {
    if (one.costUsd.delta !== null) {
      sums.costBaseline = usd(sums.costBaseline + one.costUsd.baseline!);
      sums.costNew = usd(sums.costNew + one.costUsd.new!);
    }
    if (one.steps.delta !== null) {
      sums.stepsBaseline += one.steps.baseline!;
      sums.stepsNew += one.steps.new!;
    }
  }
  const regressions = cases.filter((one) => one.regression).length;
  const unscoredCases = cases.filter((one) => unscored(one.state)).length;
  const improvements = cases.filter((one) => !one.regression && one.scores.some((score) => score.delta !== null && score.delta > EPSILON)).length;
  const ordered = [...cases].sort((a, b) => Number(b.regression) - Number(a.regression) || fall(b) - fall(a) || a.n - b.n);
  return {
    experimentId,
    baseline: baselineName,
    cases: ordered,
    totals: {
      cases: cases.length,
      regressions,
      improvements,
      unscored: unscoredCases,
      scores: meanDeltas(cases, scorers),
      costUsd: { baseline: sums.costBaseline, new: sums.costNew, delta: usd(sums.costNew - sums.costBaseline) },
      steps: { baseline: sums.stepsBaseline, new: sums.stepsNew, delta: sums.stepsNew - sums.stepsBaseline },
    },
  };
}
