// An experiment's budget, pure (docs/evals.md, "Budget"): a case's run gets as its budget the
// smaller of its own and what the experiment has left unheld (its budget less what ended cases
// spent and what running ones hold), less what its judge's calls may cost at their most. It starts
// when that is at least its minimum: EXPERIMENT_CASE_MIN_USD, or its own budget when that is less.
// One that would get less waits while running cases hold room (their holds shrink to what they
// spent when they end); when what was spent already leaves it less, it is skipped. So the
// experiment never spends past its budget, and runs every case its budget allows.
import { usd } from "../lib/money";

export type BudgetState = { budgetUsd: number; spentUsd: number; reservedUsd: number };

/** Start with this run budget (the case holds it and its judge's calls), wait, or skip. */
export type StartDecision = { kind: "start"; runBudgetUsd: number; holdUsd: number } | { kind: "wait" } | { kind: "skip" };

/** What a case may cost: its run's own budget and, for each judge call it may make, that call's most. */
export type CaseNeed = { runBudgetUsd: number; judgeCallsUsd: readonly number[] };

/** What a case's judge calls may cost at their most, together. */
export const judgeUsdOf = (judgeCallsUsd: readonly number[]): number => usd(judgeCallsUsd.reduce((sum, one) => sum + one, 0));

/** The least run budget the case starts with: the minimum, or its own budget when that is less. */
export const floorOf = (need: CaseNeed, minUsd: number): number => Math.min(need.runBudgetUsd, minUsd);

export function startDecision(state: BudgetState, need: CaseNeed, minUsd: number): StartDecision {
  const judge = judgeUsdOf(need.judgeCallsUsd);
  const floor = floorOf(need, minUsd);
  const runBudgetUsd = usd(Math.min(need.runBudgetUsd, state.budgetUsd - state.spentUsd - state.reservedUsd - judge));
  if (runBudgetUsd >= floor) return { kind: "start", runBudgetUsd, holdUsd: usd(runBudgetUsd + judge) };
  if (usd(state.budgetUsd - state.spentUsd - judge) < floor) return { kind: "skip" };
  return { kind: "wait" };
}

/** A started case's run budget, from what it holds (so a case made again after a crash gets the same). */
export function runBudgetOf(holdUsd: number, judgeCallsUsd: readonly number[]): number {
  return usd(holdUsd - judgeUsdOf(judgeCallsUsd));
}
