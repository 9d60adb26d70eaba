// An experiment's comparison and report as the edge builds them (GET /v1/experiments/{id}/comparison
// and /export): the two sides read from the experiments' views, compared by src/evals/comparison.ts,
// written as CSV by src/evals/report-csv.ts. The baseline "recordings" is each case's recording,
// scored by the same scorers when the case was.
import type { Comparison, ExperimentCase, ExperimentView } from "../../api/resources/eval-types";
import { compare, type ComparedSide } from "../../evals/comparison";
import { reportCsv } from "../../evals/report-csv";
import { experimentStub } from "../../durable/evals/experiment/experiment-stub";
import { unwrap } from "../outcome";
import { invalidRequest } from "../errors";

const sideOf = (one: ExperimentCase): ComparedSide => {
  const side: ComparedSide = { n: one.n, state: one.state, scores: one.scores };
  if (one.facts !== undefined) Object.assign(side, { costUsd: one.facts.spentUsd, steps: one.facts.steps });
  if (one.runId !== undefined) side.runId = one.runId;
  return side;
};

const recordingSideOf = (one: ExperimentCase): ComparedSide => {
  // A recorded case's recording is there, scored or not: a case the experiment did not score is lost against it.
  const side: ComparedSide = { n: one.n, state: "done", scores: one.recordingScores ?? [] };
  if (one.recordingFacts !== undefined) Object.assign(side, { costUsd: one.recordingFacts.spentUsd, steps: one.recordingFacts.steps });
  if (one.sourceRunId !== undefined) side.runId = one.sourceRunId;
  return side;
};

/** The experiment against `baseline` (an experiment id or "recordings"); a 400 for an experiment of another dataset. */
export async function comparisonOf(env: Env, view: ExperimentView, baseline: string): Promise<Comparison> {
  if (baseline === "recordings") return compare(view.id, baseline, view.cases.map(sideOf), view.cases.filter((one) => one.sourceRunId !== undefined).map(recordingSideOf));
  const other = await experimentStub(env, baseline).view().catch(() => undefined);
  if (other?.ok !== true) throw invalidRequest("Invalid request query.", [{ path: "baseline", message: `No experiment ${baseline}: give an experiment's id or "recordings".` }]);
  if (other.value.dataset.name !== view.dataset.name) throw invalidRequest("Invalid request query.", [{ path: "baseline", message: `Experiment ${baseline} ran dataset ${other.value.dataset.name}, not ${view.dataset.name}.` }]);
  return compare(view.id, baseline, view.cases.map(sideOf), other.value.cases.map(sideOf));
}

export async function experimentReport(env: Env, id: string, baseline: string | undefined): Promise<{ experiment: ExperimentView; comparison?: Comparison }> {
  const experiment = unwrap(await experimentStub(env, id).view());
  const against = baseline ?? experiment.baseline;
  return against === undefined ? { experiment } : { experiment, comparison: await comparisonOf(env, experiment, against) };
}

export function reportCsvOf(report: { experiment: ExperimentView; comparison?: Comparison }): string {
  const scorers = [...new Set(report.experiment.cases.flatMap((one) => one.scores.map((score) => score.scorer)))];
  return reportCsv(scorers, report.experiment.cases, report.comparison);
}
