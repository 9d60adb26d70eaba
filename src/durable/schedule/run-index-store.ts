// The schedule's index of its runs (`schedule_run`): one row per run a fire made, holding the
// run's summary as of its newest status change, for GET /v1/runs?scheduleId= (the run listing's
// shape and keyset cursor, newest first), the view's last runs, and overlap. The fire writes the
// row first (version 0, from the created run's view); the run's outbox then delivers every status
// change at least once, and a change is applied only when its version is newer than the row's, as
// the subject's inbox does (src/durable/inbox/inbox-store.ts).
//
// The index is trimmed with the runs' retention: a row whose run ended or was deleted, and that no
// change touched for RUN_RETENTION_DAYS (`changed_at`, the schedule's clock), is dropped. By then
// the run has deleted itself (its deletion time is fixed when it stops), so the row lists nothing;
// a deleted run's row (kept so that a late change cannot bring it back) has outlived any late
// change by then too. A schedule that fires every minute thus holds about a retention's worth of
// rows, not every run it ever made.
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import { runIndexPage } from "../storage/run-page";
import type { RunView } from "../../api/types";
import { summaryOf } from "../outbox/run-summary";

export const RUN_INDEX_TABLES = [
  `CREATE TABLE IF NOT EXISTS schedule_run (
     run_id TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     summary TEXT,
     deleted INTEGER NOT NULL DEFAULT 0,
     changed_at INTEGER
   )`,
  `CREATE INDEX IF NOT EXISTS schedule_run_created ON schedule_run (deleted, created_at DESC, run_id DESC)`,
  `CREATE INDEX IF NOT EXISTS schedule_run_status ON schedule_run (deleted, status, created_at DESC, run_id DESC)`,
];

/** Columns added after the first release: `changed_at`, when a change last reached the row (ms, the schedule's clock). */
export const RUN_INDEX_ADDED_COLUMNS = [{ table: "schedule_run", column: "changed_at", definition: "INTEGER" }];

/** Rows of an older release get `now` as their last change, so the trim counts their retention from the upgrade. */
export function stampUnchanged(sql: SqlStorage, now: number): void {
  sql.exec("UPDATE schedule_run SET changed_at = ? WHERE changed_at IS NULL", now);
}

/** Rows trimmed at most per call (each change applied, each alarm), oldest first. */
const TRIM_PAGE = 500;

/** Drops the rows of runs that ended or were deleted and that no change touched since `cutoff` (ms). Returns how many. */
export function trimRunIndex(sql: SqlStorage, cutoff: number): number {
  const rows = sql
    .exec<{ run_id: string }>(
      "SELECT run_id FROM schedule_run WHERE changed_at < ? AND (deleted = 1 OR status IN ('finished', 'failed', 'cancelled')) ORDER BY changed_at LIMIT ?",
      cutoff,
      TRIM_PAGE,
    )
    .toArray();
  for (const { run_id } of rows) sql.exec("DELETE FROM schedule_run WHERE run_id = ?", run_id);
  return rows.length;
}

/** The run a fire just made, as its create answered (version 0: any change from its outbox is newer). */
export function indexStartedRun(sql: SqlStorage, view: RunView, now: number): void {
  sql.exec(
    "INSERT INTO schedule_run (run_id, version, status, created_at, summary, changed_at) VALUES (?, 0, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING",
    view.id, view.status, view.createdAt, JSON.stringify(summaryOf(view, 0)), now,
  );
}

/** Applies the changes newer than the index holds; answers how many were, and the runs among them that ended or were deleted. */
export function applyRunChanges(sql: SqlStorage, changes: readonly InboxChange[], now: number): { applied: number; ended: string[] } {
  let applied = 0;
  const ended: string[] = [];
  for (const change of changes) {
    const { run } = change.event;
    const held = sql.exec<{ version: number }>("SELECT version FROM schedule_run WHERE run_id = ?", run.id).toArray()[0];
    if (held !== undefined && Number(held.version) >= change.version) continue;
    const deleted = change.event.type === "run-deleted";
    sql.exec(
      `INSERT INTO schedule_run (run_id, version, status, created_at, summary, deleted, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, status = excluded.status, summary = excluded.summary, deleted = excluded.deleted, changed_at = excluded.changed_at`,
      run.id, change.version, run.status, run.createdAt, deleted ? null : JSON.stringify(run), deleted ? 1 : 0, now,
    );
    applied++;
    if (deleted || change.event.type === "run-ended") ended.push(run.id);
  }
  return { applied, ended };
}

const ENDED: ReadonlySet<string> = new Set(["finished", "failed", "cancelled"]);

/** Whether the index knows the run to have ended (or to be deleted). Unknown and active runs are not. */
export function knownEnded(sql: SqlStorage, runId: string): boolean {
  const row = sql.exec<{ status: string; deleted: number }>("SELECT status, deleted FROM schedule_run WHERE run_id = ?", runId).toArray()[0];
  return row !== undefined && (Number(row.deleted) === 1 || ENDED.has(row.status));
}

/** One page, newest first (creation time, then id), after `query.after` when given. */
export function listIndexedRuns(sql: SqlStorage, query: ListQuery): ListAnswer {
  return runIndexPage(sql, "schedule_run", query);
}
