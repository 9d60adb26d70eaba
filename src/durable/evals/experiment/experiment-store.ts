// An experiment in SQLite (docs/evals.md, "Experiments"): `experiment` (its one row: what it was
// made with, its status and spend), `experiment_case` (each case: its input, its state, its run, what
// it holds against the budget and spent, and once scored its facts, scores and divergence). Each
// move of a case is one statement or one transaction (the caller's), so a crash leaves a case where
// it was or where it went, never between. This module alone holds the SQL of the two tables.
import type { NewExperiment } from "../../../api/rpc/evals-rpc";
import type { CaseReference, CaseState, DatasetCase, Divergence, ExperimentCase, ExperimentStatus, RunFacts, Score } from "../../../api/resources/eval-types";
import type { ChatMessage } from "../../../loop/types";
import { usd } from "../../../lib/money";
import { SPILL_TABLE, spillText, unspillText } from "../../storage/spill";
import { tableExists } from "../../storage/sqlite-tables";

const STATEMENTS = [
  SPILL_TABLE,
  `CREATE TABLE IF NOT EXISTS experiment (
     id TEXT PRIMARY KEY,
     spec TEXT NOT NULL,
     status TEXT NOT NULL,
     spent_usd REAL NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     ended_at TEXT
   )`,
  `CREATE TABLE IF NOT EXISTS experiment_case (
     n INTEGER PRIMARY KEY,
     source_run_id TEXT,
     messages TEXT,
     reference TEXT,
     state TEXT NOT NULL,
     run_id TEXT,
     created INTEGER NOT NULL DEFAULT 0,
     attempts INTEGER NOT NULL DEFAULT 0,
     reserved_usd REAL NOT NULL DEFAULT 0,
     judge_usd REAL NOT NULL DEFAULT 0,
     result TEXT,
     reason TEXT
   )`,
  `CREATE INDEX IF NOT EXISTS experiment_case_run ON experiment_case (run_id)`,
  `CREATE INDEX IF NOT EXISTS experiment_case_state ON experiment_case (state, n)`,
];

/** What the experiment was made with, as its row keeps it: all of NewExperiment but its cases. */
export type ExperimentSpec = Omit<NewExperiment, "cases">;

export type ExperimentRow = { spec: ExperimentSpec; status: ExperimentStatus; spentUsd: number; createdAt: string; updatedAt: string; endedAt?: string };

/** What scoring found, kept with the case. */
export type CaseResult = { facts?: RunFacts; scores: Score[]; recordingScores?: Score[]; recordingFacts?: ExperimentCase["recordingFacts"]; divergence?: Divergence };

export type CaseRow = {
  n: number;
  sourceRunId?: string;
  messages?: ChatMessage[];
  reference?: CaseReference;
  state: CaseState;
  runId?: string;
  /** The case's run object answered its creation. */
  created: boolean;
  attempts: number;
  reservedUsd: number;
  judgeUsd: number;
  result?: CaseResult;
  reason?: string;
};

export function hasExperiment(sql: SqlStorage): boolean {
  return tableExists(sql, "experiment");
}

/** Inside a transaction: the experiment and its cases, all pending. */
export function insertExperiment(sql: SqlStorage, experiment: NewExperiment): void {
  for (const statement of STATEMENTS) sql.exec(statement);
  const { cases, ...spec } = experiment;
  sql.exec("INSERT INTO experiment (id, spec, status, created_at, updated_at) VALUES (?, ?, 'running', ?, ?)", spec.id, spillText(sql, "experiment/spec", JSON.stringify(spec)), spec.createdAt, spec.createdAt);
  for (const one of cases) insertCase(sql, one);
}

function insertCase(sql: SqlStorage, one: DatasetCase): void {
  sql.exec(
    "INSERT INTO experiment_case (n, source_run_id, messages, reference, state) VALUES (?, ?, ?, ?, 'pending')",
    one.n,
    one.runId ?? null,
    one.messages === undefined ? null : spillText(sql, `case/${one.n}/messages`, JSON.stringify(one.messages)),
    one.reference === undefined ? null : spillText(sql, `case/${one.n}/reference`, JSON.stringify(one.reference)),
  );
}

export function readExperiment(sql: SqlStorage): ExperimentRow | undefined {
  if (!hasExperiment(sql)) return undefined;
  const row = sql.exec<{ spec: string; status: string; spent_usd: number; created_at: string; updated_at: string; ended_at: string | null }>("SELECT spec, status, spent_usd, created_at, updated_at, ended_at FROM experiment LIMIT 1").toArray()[0];
  if (row === undefined) return undefined;
  const experiment: ExperimentRow = { spec: JSON.parse(unspillText(sql, row.spec)) as ExperimentSpec, status: row.status as ExperimentStatus, spentUsd: Number(row.spent_usd), createdAt: row.created_at, updatedAt: row.updated_at };
  if (row.ended_at !== null) experiment.endedAt = row.ended_at;
  return experiment;
}

/** The experiment's status (and end), stamped `at`. */
export function setStatus(sql: SqlStorage, status: ExperimentStatus, at: string): void {
  sql.exec("UPDATE experiment SET status = ?, updated_at = ?, ended_at = CASE WHEN ? = 'running' THEN NULL ELSE ? END", status, at, status, at);
}

/** Adds what a case spent (its run and its judge) to the experiment's spend. */
export function addSpent(sql: SqlStorage, amountUsd: number, at: string): void {
  const { spent_usd } = sql.exec<{ spent_usd: number }>("SELECT spent_usd FROM experiment LIMIT 1").one();
  sql.exec("UPDATE experiment SET spent_usd = ?, updated_at = ?", usd(Number(spent_usd) + amountUsd), at);
}

type RawCase = Record<string, SqlStorageValue>;

function caseOf(sql: SqlStorage, raw: RawCase): CaseRow {
  const row: CaseRow = {
    n: Number(raw.n),
    state: String(raw.state) as CaseState,
    created: Number(raw.created) === 1,
    attempts: Number(raw.attempts),
    reservedUsd: Number(raw.reserved_usd),
    judgeUsd: Number(raw.judge_usd),
  };
  if (raw.source_run_id !== null) row.sourceRunId = String(raw.source_run_id);
  if (raw.messages !== null) row.messages = JSON.parse(unspillText(sql, String(raw.messages))) as ChatMessage[];
  if (raw.reference !== null) row.reference = JSON.parse(unspillText(sql, String(raw.reference))) as CaseReference;
  if (raw.run_id !== null) row.runId = String(raw.run_id);
  if (raw.result !== null) row.result = JSON.parse(unspillText(sql, String(raw.result))) as CaseResult;
  if (raw.reason !== null) row.reason = String(raw.reason);
  return row;
}

/** The cases (in `state`), in their order; the first `limit` of them when given. */
export function readCases(sql: SqlStorage, state?: CaseState, limit = -1): CaseRow[] {
  if (!hasExperiment(sql)) return [];
  const rows = state === undefined ? sql.exec<RawCase>("SELECT * FROM experiment_case ORDER BY n LIMIT ?", limit) : sql.exec<RawCase>("SELECT * FROM experiment_case WHERE state = ? ORDER BY n LIMIT ?", state, limit);
  return rows.toArray().map((raw) => caseOf(sql, raw));
}

export function readCase(sql: SqlStorage, n: number): CaseRow | undefined {
  const raw = sql.exec<RawCase>("SELECT * FROM experiment_case WHERE n = ?", n).toArray()[0];
  return raw === undefined ? undefined : caseOf(sql, raw);
}

export function caseOfRun(sql: SqlStorage, runId: string): CaseRow | undefined {
  if (!hasExperiment(sql)) return undefined;
  const raw = sql.exec<RawCase>("SELECT * FROM experiment_case WHERE run_id = ?", runId).toArray()[0];
  return raw === undefined ? undefined : caseOf(sql, raw);
}

/** How many cases are in each state. */
export function countStates(sql: SqlStorage): Map<CaseState, number> {
  const counts = new Map<CaseState, number>();
  if (!hasExperiment(sql)) return counts;
  for (const row of sql.exec<{ state: string; n: number }>("SELECT state, COUNT(*) AS n FROM experiment_case GROUP BY state").toArray()) counts.set(row.state as CaseState, Number(row.n));
  return counts;
}

/** What running and scoring cases hold against the budget. */
export function reservedUsd(sql: SqlStorage): number {
  return usd(Number(sql.exec<{ held: number | null }>("SELECT SUM(reserved_usd) AS held FROM experiment_case WHERE state IN ('running', 'scoring')").one().held ?? 0));
}

/** A pending case goes: its run's id is set and its hold taken, before its run is made. */
export function markStarting(sql: SqlStorage, n: number, runId: string, holdUsd: number): void {
  sql.exec("UPDATE experiment_case SET state = 'running', run_id = ?, reserved_usd = ?, created = 0 WHERE n = ? AND state = 'pending'", runId, holdUsd, n);
}

export function markCreated(sql: SqlStorage, n: number): void {
  sql.exec("UPDATE experiment_case SET created = 1 WHERE n = ?", n);
}

/** An attempt to make the case's run that could not reach its object: counted (committed before the next). */
export function countAttempt(sql: SqlStorage, n: number): number {
  sql.exec("UPDATE experiment_case SET attempts = attempts + 1 WHERE n = ?", n);
  return Number(sql.exec<{ attempts: number }>("SELECT attempts FROM experiment_case WHERE n = ?", n).one().attempts);
}

/** A running case whose run ended (or waits): to be scored. */
export function markScoring(sql: SqlStorage, n: number): boolean {
  sql.exec("UPDATE experiment_case SET state = 'scoring', created = 1 WHERE n = ? AND state = 'running'", n);
  return Number(sql.exec<{ changed: number }>("SELECT changes() AS changed").one().changed) > 0;
}

/** A case that ended without a score: failed, skipped or cancelled, its hold released. */
export function settleCase(sql: SqlStorage, n: number, state: "failed" | "skipped" | "cancelled", reason: string): void {
  sql.exec("UPDATE experiment_case SET state = ?, reason = ?, reserved_usd = 0 WHERE n = ?", state, reason, n);
}

/** The judge's cost of a case so far (kept as its calls are journaled). */
export function addJudgeUsd(sql: SqlStorage, n: number, amountUsd: number): void {
  sql.exec("UPDATE experiment_case SET judge_usd = judge_usd + ? WHERE n = ?", amountUsd, n);
}

/** A scored case: done, its hold released, its result kept. */
export function finishCase(sql: SqlStorage, n: number, result: CaseResult, reason: string | undefined): void {
  sql.exec(
    "UPDATE experiment_case SET state = 'done', reserved_usd = 0, result = ?, reason = ? WHERE n = ?",
    spillText(sql, `case/${n}/result`, JSON.stringify(result), true),
    reason ?? null,
    n,
  );
}
