// An experiment's budget, pure (docs/evals.md, "Budget"): a case starts only when what it could
// spend — its run's budget, and its judge's calls at their most — fits beside what ended cases
// spent and what running ones still hold. A case that does not fit waits while others run (their
// holds shrink to what they spent when they end); one that could never fit, because what was spent
// already leaves it no room, is skipped. So the experiment never spends past its budget.
import { usd } from "../lib/money";

export type BudgetState = { budgetUsd: number; spentUsd: number; reservedUsd: number };

export type StartDecision = "start" | "wait" | "skip";

export function startDecision(state: BudgetState, reserveUsd: number): StartDecision {
  if (usd(state.spentUsd + reserveUsd) > state.budgetUsd) return "skip";
  if (usd(state.spentUsd + state.reservedUsd + reserveUsd) > state.budgetUsd) return "wait";
  return "start";
}

/** What a case holds before it starts: its run's budget and, for each judge call it may make, that call's most. */
export function caseReserve(runBudgetUsd: number, judgeCallsUsd: readonly number[]): number {
  return usd(judgeCallsUsd.reduce((sum, one) => sum + one, runBudgetUsd));
}
