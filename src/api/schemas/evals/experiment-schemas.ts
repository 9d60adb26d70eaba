// The zod schemas of experiments (docs/evals.md, docs/api.md): the body of POST /v1/experiments (a
// dataset, a variant, the mode, the budget, the concurrency, the scorers, a baseline), an
// experiment's view with its cases, its events (GET /v1/experiments/{id}/events) and the
// comparison against a baseline.
import { z } from "@hono/zod-openapi";
import { agentRefSchema } from "../agents/agent-ref-schemas";
import { createRunBodySchema } from "../runs/create-run-schemas";
import { runStatusSchema } from "../runs/run-view-schemas";
import { toolRefSchema } from "../tools/tool-schemas";
import { stoppedBySchema } from "../runs/run-view-schemas";
import { datasetNameSchema } from "./dataset-schemas";
import { scoreSchema, scorerSchema, scorersSchema } from "./scorer-schemas";

const run = createRunBodySchema.shape;

export const replayModeSchema = z
  .enum(["replay", "live", "replay-then-live"])
  .openapi({ description: 'How a case\'s tool calls are answered: "replay" from the recording only (a call it lacks is refused, and the model reads why), "live" by the tools themselves, "replay-then-live" from the recording where it has the call, else live.' });

/** What a variant may change of each recording's request: the fork fields, and the answer tokens. */
const changesSchema = z
  .strictObject({
    system: run.system,
    provider: run.provider,
    model: run.model,
    tools: z.array(toolRefSchema).optional().openapi({ description: "Stored kinds only (an agent tool gives its template), as a fork's." }),
    maxSteps: run.maxSteps,
    maxTokens: run.maxTokens,
    budget: z.strictObject({ usd: z.number().gt(0), finishAt: z.number().gt(0).lte(1).optional() }).optional().openapi({ description: "Each case run's budget. Default: its recording's." }),
    script: run.script.openapi({ description: 'For provider "scripted": the turns each case plays from its first model call (where SCRIPTED_PROVIDER=on).' }),
  })
  .openapi("VariantChanges");

export const variantSchema = z
  .union([z.strictObject({ agent: agentRefSchema.openapi({ description: "A stored agent's version (its latest, or {name, version}): each case runs its template with the case's input." }) }), changesSchema])
  .openapi("Variant", { description: "A stored agent's version ({agent}), or changes to each recording's own request (system, provider, model, tools, maxSteps, maxTokens, budget, script; {} re-runs the recordings as they were)." });

export const EXPERIMENT_NAME_MAX = 128;

export const createExperimentBodySchema = z
  .strictObject({
    name: z.string().min(1).max(EXPERIMENT_NAME_MAX).optional(),
    dataset: datasetNameSchema,
    datasetVersion: z.number().int().gte(1).optional().openapi({ description: "Default: the dataset's latest version." }),
    variant: variantSchema,
    mode: replayModeSchema.optional().openapi({ description: 'Default "replay".' }),
    budget: z.strictObject({ usd: z.number().gt(0) }).optional().openapi({ description: "What the experiment may spend in all (case runs and judge calls): at most EXPERIMENT_BUDGET_USD_LIMIT. Default: { usd: BUDGET_USD_DEFAULT }." }),
    concurrency: z.number().int().gte(1).optional().openapi({ description: "Case runs at once: at most EXPERIMENT_CONCURRENCY_LIMIT. Default 4." }),
    scorers: scorersSchema,
    baseline: z.string().min(1).max(128).optional().openapi({ description: 'What the comparison compares with by default: another experiment of the same dataset (its id), or "recordings" (each recording, scored by the same scorers).' }),
  })
  .openapi("CreateExperimentBody");

export type CreateExperimentInput = z.infer<typeof createExperimentBodySchema>;

const callFactSchema = z.object({ step: z.number().int(), name: z.string(), input: z.unknown() }).openapi("CallFact");

export const runFactsSchema = z
  .object({
    runId: z.string(),
    status: runStatusSchema,
    stoppedBy: stoppedBySchema.optional(),
    finalText: z.string(),
    final: z.unknown().optional(),
    spentUsd: z.number(),
    steps: z.number().int(),
    calls: z.array(callFactSchema),
  })
  .openapi("RunFacts");

export const divergenceSchema = z
  .object({
    fromRecording: z.number().int().openapi({ description: "Calls answered from the recording." }),
    unrecorded: z.array(z.object({ step: z.number().int(), name: z.string(), input: z.unknown(), answered: z.enum(["live", "refused"]) })).openapi({ description: "Calls the recording has no match for: run live, or refused." }),
    neverMade: z.array(callFactSchema).openapi({ description: "Recorded calls the case's run never made (step: the recording's)." }),
    argumentMismatches: z.array(z.object({ tool: z.string(), step: z.number().int(), path: z.string(), recorded: z.unknown(), new: z.unknown() })).openapi({ description: "A call with no recording beside the first unused recorded call of its tool: where their inputs first differ." }),
    firstRequestDifference: z.object({ step: z.number().int(), path: z.string() }).optional().openapi({ description: "The first model step whose request differs from the recording's, and its first differing field." }),
  })
  .openapi("Divergence");

export const caseStateSchema = z.enum(["pending", "running", "scoring", "done", "failed", "skipped", "cancelled"]);

export const experimentCaseSchema = z
  .object({
    n: z.number().int(),
    state: caseStateSchema,
    sourceRunId: z.string().optional(),
    runId: z.string().optional(),
    facts: runFactsSchema.optional(),
    scores: z.array(scoreSchema),
    recordingScores: z.array(scoreSchema).optional(),
    recordingFacts: z.object({ spentUsd: z.number(), steps: z.number().int(), status: runStatusSchema }).optional(),
    divergence: divergenceSchema.optional(),
    judgeUsd: z.number(),
    reason: z.string().optional(),
  })
  .openapi("ExperimentCase");

export const experimentProgressSchema = z
  .object({ total: z.number().int(), pending: z.number().int(), running: z.number().int(), scoring: z.number().int(), done: z.number().int(), failed: z.number().int(), skipped: z.number().int(), cancelled: z.number().int() })
  .openapi("ExperimentProgress");

const experimentFields = {
  id: z.string(),
  name: z.string().optional(),
  dataset: z.object({ name: z.string(), version: z.number().int() }),
  mode: replayModeSchema,
  budgetUsd: z.number(),
  concurrency: z.number().int(),
  baseline: z.string().optional(),
  status: z.enum(["running", "finished", "cancelled"]),
  progress: experimentProgressSchema,
  spentUsd: z.number().openapi({ description: "What ended cases and the judge spent." }),
  reservedUsd: z.number().openapi({ description: "What running cases may still spend, held against the budget." }),
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().optional(),
};

export const experimentViewSchema = z
  .object({
    ...experimentFields,
    variant: z.record(z.string(), z.unknown()).openapi({ description: "The variant as given (through the one redaction)." }),
    scorers: z.array(scorerSchema),
    lastSeq: z.number().int().openapi({ description: "Seq of the newest event (GET /v1/experiments/{id}/events)." }),
    cases: z.array(experimentCaseSchema),
  })
  .openapi("Experiment");

export const experimentSummarySchema = z.object(experimentFields).openapi("ExperimentSummary");
export const experimentAnswerSchema = z.object({ experiment: experimentViewSchema }).openapi("ExperimentAnswer");
export const experimentsPageSchema = z
  .object({ experiments: z.array(experimentSummarySchema), nextCursor: z.string().optional().openapi({ description: "Absent on the last page." }) })
  .openapi("ExperimentsPage");

const deltaSchema = z.object({ baseline: z.number().nullable(), new: z.number().nullable(), delta: z.number().nullable() });
const scoreDeltaSchema = z.object({ scorer: z.string(), baseline: z.number().nullable(), score: z.number().nullable(), delta: z.number().nullable() }).openapi("ScoreDelta");

export const comparisonSchema = z
  .object({
    experimentId: z.string(),
    baseline: z.string().openapi({ description: 'The baseline: an experiment id, or "recordings".' }),
    cases: z
      .array(z.object({ n: z.number().int(), state: caseStateSchema, regression: z.boolean().openapi({ description: "Any of its scores fell, or the experiment did not score it (skipped, failed, cancelled) while the baseline has it." }), scores: z.array(scoreDeltaSchema), costUsd: deltaSchema, steps: deltaSchema, runId: z.string().optional(), baselineRunId: z.string().optional() }))
      .openapi({ description: "Every case, regressions first (the largest fall first), then by case number." }),
    totals: z.object({
      cases: z.number().int(),
      regressions: z.number().int(),
      improvements: z.number().int(),
      unscored: z.number().int().openapi({ description: "Cases the experiment did not score (skipped, failed, cancelled): counted, never left out as no change. The scorers' means cover the cases both sides scored." }),
      scores: z.array(scoreDeltaSchema),
      costUsd: z.object({ baseline: z.number(), new: z.number(), delta: z.number() }),
      steps: z.object({ baseline: z.number(), new: z.number(), delta: z.number() }),
    }),
  })
  .openapi("Comparison");

export const comparisonAnswerSchema = z.object({ comparison: comparisonSchema }).openapi("ComparisonAnswer");

/** An experiment's events, as its stream sends them (each with seq and at). */
export const experimentEventSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("experiment-started"), progress: experimentProgressSchema }),
    z.object({ type: z.literal("case-started"), n: z.number().int(), runId: z.string(), progress: experimentProgressSchema }),
    z.object({ type: z.literal("case-ended"), case: experimentCaseSchema, spentUsd: z.number(), progress: experimentProgressSchema }),
    z.object({ type: z.literal("experiment-ended"), status: z.enum(["finished", "cancelled"]), spentUsd: z.number(), progress: experimentProgressSchema }),
  ])
  .openapi("ExperimentEvent");

export { scorerSchema };
