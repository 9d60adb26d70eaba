// An experiment as it may leave the service: its view (with every case), its summary and its
// progress, built from its rows. The variant and the scorers pass through the one redaction
// (src/api/redaction/redact-body.ts): a variant's tools may hold what a run's body may, and no view
// shows more of it than a run's view would.
import type { CaseState, ExperimentCase, ExperimentProgress, ExperimentSummary, ExperimentView } from "../../../api/resources/eval-types";
import { redactBody } from "../../../api/redaction/redact-body";
import type { CreateRunBody } from "../../../api/types";
import { lastSeq } from "../../events/log/event-log";
import { countStates, readCases, readExperiment, reservedUsd, type CaseRow, type ExperimentRow } from "./experiment-store";

const STATES: CaseState[] = ["pending", "running", "scoring", "done", "failed", "skipped", "cancelled"];

export function progressOf(sql: SqlStorage): ExperimentProgress {
  const counts = countStates(sql);
  const progress = { total: 0 } as ExperimentProgress;
  for (const state of STATES) {
    progress[state] = counts.get(state) ?? 0;
    progress.total += progress[state];
  }
  return progress;
}

export function caseView(row: CaseRow): ExperimentCase {
  const view: ExperimentCase = { n: row.n, state: row.state, scores: row.result?.scores ?? [], judgeUsd: row.judgeUsd };
  if (row.sourceRunId !== undefined) view.sourceRunId = row.sourceRunId;
  if (row.runId !== undefined && (row.created || row.state !== "running")) view.runId = row.runId;
  const result = row.result;
  if (result?.facts !== undefined) view.facts = result.facts;
  if (result?.recordingScores !== undefined) view.recordingScores = result.recordingScores;
  if (result?.recordingFacts !== undefined) view.recordingFacts = result.recordingFacts;
  if (result?.divergence !== undefined) view.divergence = result.divergence;
  if (row.reason !== undefined) view.reason = row.reason;
  return view;
}

function summaryOf(sql: SqlStorage, row: ExperimentRow): ExperimentSummary {
  const { spec } = row;
  const summary: ExperimentSummary = {
    id: spec.id,
    dataset: spec.dataset,
    mode: spec.mode,
    budgetUsd: spec.budgetUsd,
    concurrency: spec.concurrency,
    status: row.status,
    progress: progressOf(sql),
    spentUsd: row.spentUsd,
    reservedUsd: reservedUsd(sql),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (spec.name !== undefined) summary.name = spec.name;
  if (spec.baseline !== undefined) summary.baseline = spec.baseline;
  if (row.endedAt !== undefined) summary.endedAt = row.endedAt;
  return summary;
}

export function experimentSummary(sql: SqlStorage): ExperimentSummary | undefined {
  const row = readExperiment(sql);
  return row === undefined ? undefined : summaryOf(sql, row);
}

export function experimentView(sql: SqlStorage): ExperimentView | undefined {
  const row = readExperiment(sql);
  if (row === undefined) return undefined;
  // A variant is a run body's fields: what a run's view would not show of them, it does not show.
  const variant = redactBody(row.spec.variant as unknown as CreateRunBody) as unknown as ExperimentView["variant"];
  return { ...summaryOf(sql, row), variant, scorers: row.spec.scorers, lastSeq: lastSeq(sql), cases: readCases(sql).map(caseView) };
}
