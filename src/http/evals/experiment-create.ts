// An experiment as the edge makes it (POST /v1/experiments, docs/evals.md): the dataset at its
// version (every case as it is then), the variant resolved (a stored agent's version, pinned), the
// budget and concurrency within their settings, each rubric's judge admitted as a run's provider
// and model are (src/intake/judge-model.ts), each regex runnable on RE2, and a baseline that is
// "recordings" or another experiment of the same dataset. Every problem is one 400 issue at its
// field; what the cases' runs may do is checked case by case, by the one intake, when each starts.
import type { NewExperiment, StoredVariant } from "../../api/rpc/evals-rpc";
import type { Scorer, Variant, VariantChanges } from "../../api/resources/eval-types";
import type { CreateExperimentInput } from "../../api/schemas/evals/experiment-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import type { AgentRef } from "../../api/resources/agent-types";
import type { Settings } from "../../config/settings";
import { datasetsStub, experimentStub } from "../../durable/evals/experiment/experiment-stub";
import { judgeModel } from "../../intake/judge-model";
import { IntakeRefusal } from "../../intake/refusal";
import { linearPatternProblem } from "../../tools/linear-regexp";
import { agentAt } from "../agents/agents";
import { invalidRequest } from "../errors";

/** Case runs at once when the request names no concurrency. */
export const CONCURRENCY_DEFAULT = 4;

function scorerIssues(env: Env, settings: Settings, scorers: readonly Scorer[]): Issue[] {
  const issues: Issue[] = [];
  scorers.forEach((scorer, index) => {
    if (scorer.type === "regex") {
      const problem = linearPatternProblem(scorer.pattern);
      if (problem !== undefined) issues.push({ path: `scorers.${index}.pattern`, message: problem });
    }
    if (scorer.type !== "rubric") return;
    try {
      judgeModel(scorer, env, settings);
    } catch (error) {
      if (!(error instanceof IntakeRefusal)) throw error;
      const found = error.issues ?? [];
      if (found.length === 0) issues.push({ path: `scorers.${index}`, message: error.message });
      for (const issue of found) issues.push({ path: `scorers.${index}.${issue.path}`, message: issue.message });
    }
  });
  return issues;
}

async function resolveVariant(env: Env, variant: Variant): Promise<StoredVariant> {
  if (!("agent" in variant)) return { kind: "changes", changes: variant as VariantChanges };
  const version = await agentAt(env, { kind: "deployment" }, variant.agent as unknown as AgentRef, "variant.agent");
  return { kind: "agent", agent: { name: version.name, version: version.version }, template: version.run, provider: version.provider, model: version.model };
}

export type ExperimentOrigin = { id: string; origin: string; createdAt: string };

export async function newExperiment(env: Env, settings: Settings, input: CreateExperimentInput, made: ExperimentOrigin): Promise<NewExperiment> {
  const issues: Issue[] = [];
  const { limits } = settings;
  const budgetUsd = input.budget?.usd ?? limits.budgetUsdDefault;
  if (budgetUsd > limits.experimentBudgetUsd) issues.push({ path: "budget.usd", message: `At most ${limits.experimentBudgetUsd} on this deployment (EXPERIMENT_BUDGET_USD_LIMIT).` });
  const concurrency = input.concurrency ?? Math.min(CONCURRENCY_DEFAULT, limits.experimentConcurrency);
  if (concurrency > limits.experimentConcurrency) issues.push({ path: "concurrency", message: `At most ${limits.experimentConcurrency} on this deployment (EXPERIMENT_CONCURRENCY_LIMIT).` });
  const scorers = input.scorers as Scorer[];
  issues.push(...scorerIssues(env, settings, scorers));
  const dataset = await datasetsStub(env).view(input.dataset, input.datasetVersion);
  if (!dataset.ok) issues.push({ path: input.datasetVersion === undefined ? "dataset" : "datasetVersion", message: dataset.error.message });
  else if (dataset.value.cases.length === 0) issues.push({ path: "dataset", message: "The dataset has no cases." });
  if (input.baseline !== undefined && input.baseline !== "recordings") {
    const baseline = await experimentStub(env, input.baseline).summary().catch(() => undefined);
    if (baseline?.ok !== true) issues.push({ path: "baseline", message: `No experiment ${input.baseline}: give an experiment's id or "recordings".` });
    else if (baseline.value.dataset.name !== input.dataset) issues.push({ path: "baseline", message: `Experiment ${input.baseline} ran dataset ${baseline.value.dataset.name}, not ${input.dataset}.` });
  }
  const variant = input.variant as Variant;
  const resolved = await resolveVariant(env, variant);
  if (issues.length > 0 || !dataset.ok) throw invalidRequest("Invalid request body.", issues);
  const experiment: NewExperiment = {
    id: made.id,
    dataset: { name: dataset.value.name, version: dataset.value.version },
    cases: dataset.value.cases,
    variant,
    resolved,
    mode: input.mode ?? "replay",
    budgetUsd,
    concurrency,
    scorers,
    origin: made.origin,
    createdAt: made.createdAt,
  };
  if (input.name !== undefined) experiment.name = input.name;
  if (input.baseline !== undefined) experiment.baseline = input.baseline;
  return experiment;
}
