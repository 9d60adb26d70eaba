// The deployment's caps on what one run may ask for (MAX_STEPS_LIMIT, MAX_TOKENS_LIMIT,
// BUDGET_USD_LIMIT, MAX_TOOLS), and the limits a run is stored with when it names none. Pure.
import type { Issue } from "../api/schemas/error-schemas";
import type { CreateRunBody, ToolRef } from "../api/types";
import type { Limits } from "../config/limits";
import { usd } from "../lib/money";
import { DEFAULT_MAX_STEPS } from "../loop";
import { DEFAULT_ANSWER_TOKENS } from "../loop/guards/budget-ceiling";
import { offeredNames } from "../tools/client-toolset";

export type Capped = { maxSteps?: number | undefined; maxTokens?: number | undefined; budget?: { usd: number } | undefined; tools?: readonly ToolRef[] | undefined };

/** What goes past this deployment's caps, each issue naming the cap's setting. */
export function capIssues(body: Capped, limits: Limits): Issue[] {
  const issues: Issue[] = [];
  if (body.maxSteps !== undefined && body.maxSteps > limits.maxSteps) {
    issues.push({ path: "maxSteps", message: `At most ${limits.maxSteps} on this deployment (MAX_STEPS_LIMIT).` });
  }
  if (body.maxTokens !== undefined && body.maxTokens > limits.maxTokens) {
    issues.push({ path: "maxTokens", message: `At most ${limits.maxTokens} on this deployment (MAX_TOKENS_LIMIT).` });
  }
  if (body.budget !== undefined && body.budget.usd > limits.budgetUsd) {
    issues.push({ path: "budget.usd", message: `At most ${limits.budgetUsd} on this deployment (BUDGET_USD_LIMIT).` });
  }
  const offered = (body.tools ?? []).reduce((count, ref) => count + offeredNames(ref).length, 0);
  if (offered > limits.maxTools) {
    issues.push({ path: "tools", message: `At most ${limits.maxTools} tools on this deployment (MAX_TOOLS; each action of a toolset counts); these offer ${offered}.` });
  }
  return issues;
}

type Limited = Omit<CreateRunBody, "messages">;

/**
 * maxSteps, the budget and answer tokens as the run will use them: a run without a budget gets the
 * deployment's default, never an unlimited one, and one without maxTokens never gets more than
 * MAX_TOKENS_LIMIT from a provider's default. Applied to a body already limited, it changes nothing.
 */
export function withLimits<B extends Limited>(body: B, limits: Limits): B {
  const limited: B = {
    ...body,
    maxSteps: body.maxSteps ?? Math.min(DEFAULT_MAX_STEPS, limits.maxSteps),
    budget: budgetInMicros(body.budget ?? { usd: limits.budgetUsdDefault }),
  };
  if (body.maxTokens === undefined && limits.maxTokens < DEFAULT_ANSWER_TOKENS) limited.maxTokens = limits.maxTokens;
  return limited;
}

/** A budget in whole micro-dollars, as every amount the service reports (a budget above 0 stays at least $0.000001). */
function budgetInMicros(budget: NonNullable<CreateRunBody["budget"]>): NonNullable<CreateRunBody["budget"]> {
  const rounded = { ...budget, usd: Math.max(usd(budget.usd), 0.000001) };
  if (budget.spentUsd !== undefined) rounded.spentUsd = usd(budget.spentUsd);
  return rounded;
}
