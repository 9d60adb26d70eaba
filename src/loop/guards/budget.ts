import type { Budget } from "../types";
import { addUsd } from "../../lib/money";

/** Thrown inside a step's work when the budget is spent; the journal never stores it. */
export class BudgetExhausted extends Error {
  constructor(readonly spentUsd: number, readonly usd: number) {
    super(`Budget spent: $${spentUsd} of $${usd}.`);
    this.name = "BudgetExhausted";
  }
}

/** spent = budget.spentUsd + the cost of every step (replayed ones too) + await budget.spent(). */
export async function spentNow(budget: Budget | undefined, stepCosts: number): Promise<number> {
  const outside = budget?.spent === undefined ? 0 : await budget.spent();
  return addUsd(budget?.spentUsd ?? 0, stepCosts, outside);
}

/** Throws BudgetExhausted when the budget is spent. Called only inside the work it guards. */
export function assertBudget(budget: Budget | undefined, spent: number): void {
  if (budget !== undefined && spent >= budget.usd) throw new BudgetExhausted(spent, budget.usd);
}

/** True when spend has reached `finishAt` of the budget: the next model call is the last. */
export function reachedFinishAt(budget: Budget | undefined, spent: number): boolean {
  return budget?.finishAt !== undefined && spent >= budget.finishAt * budget.usd;
}
