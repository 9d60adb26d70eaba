// The spend limit a continue or a retry reserves against: a user token's own daily limit (its
// budgetUsdPerDay, else the deployment's); other callers use the run's. Shared by /v1/runs and the
// A2A door's continues.
import type { Context } from "hono";
import type { SpendLimit } from "../../../api/rpc/run-rpc";
import type { AppEnv } from "../../app-env";

export function spendLimitOf(c: Context<AppEnv>): SpendLimit {
  if (c.var.caller !== "user") return {};
  return { limitUsd: c.var.user.budgetUsdPerDay ?? c.var.settings.limits.subjectBudgetUsdPerDay };
}
