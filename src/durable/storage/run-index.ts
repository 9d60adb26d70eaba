// A run index kept from runs' status changes: one row per run, holding the run's summary as of its
// newest status change, for a listing of runs newest first (the run listing's shape and keyset
// cursor, run-page.ts). A schedule's index of the runs its fires made (`schedule_run`) and a stored
// agent's index of its runs (`agent_run`) are each one table of this shape in their own object. The
// runs' outboxes deliver every status change at least once, and a change is applied only when its
// version is newer than the row's, as the subject's inbox does (src/durable/inbox/inbox-store.ts).
//
// The index is trimmed with the runs' retention: a row whose run ended or was deleted, and that no
// change touched for RUN_RETENTION_DAYS (`changed_at`, the object's clock), is dropped. By then
// the run has deleted itself (its deletion time is fixed when it stops), so the row lists nothing;
// a deleted run's row (kept so that a late change cannot bring it back) has outlived any late
// change by then too. An index thus holds about a retention's worth of rows, not every run it saw.
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import { runIndexPage, type RunIndexTable } from "./run-page";

export type { RunIndexTable };

/** The statements that make index `table` and its indexes. */
export function runIndexTables(table: RunIndexTable): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
       run_id TEXT PRIMARY KEY,
       version INTEGER NOT NULL,
       status TEXT NOT NULL,
       created_at TEXT NOT NULL,
       summary TEXT,
       deleted INTEGER NOT NULL DEFAULT 0,
       changed_at INTEGER
     )`,
    `CREATE INDEX IF NOT EXISTS ${table}_created ON ${table} (deleted, created_at DESC, run_id DESC)`,
    `CREATE INDEX IF NOT EXISTS ${table}_status ON ${table} (deleted, status, created_at DESC, run_id DESC)`,
  ];
}

/** Rows trimmed at most per call (each change applied, each alarm), oldest first. */
const TRIM_PAGE = 500;

/** Drops the rows of runs that ended or were deleted and that no change touched since `cutoff` (ms). Returns how many. */
export function trimIndex(sql: SqlStorage, table: RunIndexTable, cutoff: number): number {
  const rows = sql
    .exec<{ run_id: string }>(
      `SELECT run_id FROM ${table} WHERE changed_at < ? AND (deleted = 1 OR status IN ('finished', 'failed', 'cancelled')) ORDER BY changed_at LIMIT ?`,
      cutoff,
      TRIM_PAGE,
    )
    .toArray();
  for (const { run_id } of rows) sql.exec(`DELETE FROM ${table} WHERE run_id = ?`, run_id);
  return rows.length;
}

/** Applies the changes newer than the index holds; answers how many were, and the runs among them that ended or were deleted. */
export function applyIndexChanges(sql: SqlStorage, table: RunIndexTable, changes: readonly InboxChange[], now: number): { applied: number; ended: string[] } {
  let applied = 0;
  const ended: string[] = [];
  for (const change of changes) {
    const { run } = change.event;
    const held = sql.exec<{ version: number }>(`SELECT version FROM ${table} WHERE run_id = ?`, run.id).toArray()[0];
    if (held !== undefined && Number(held.version) >= change.version) continue;
    const deleted = change.event.type === "run-deleted";
    sql.exec(
      `INSERT INTO ${table} (run_id, version, status, created_at, summary, deleted, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, status = excluded.status, summary = excluded.summary, deleted = excluded.deleted, changed_at = excluded.changed_at`,
      run.id, change.version, run.status, run.createdAt, deleted ? null : JSON.stringify(run), deleted ? 1 : 0, now,
    );
    applied++;
    if (deleted || change.event.type === "run-ended") ended.push(run.id);
  }
  return { applied, ended };
}

/** One page, newest first (creation time, then id), after `query.after` when given. */
export function listIndex(sql: SqlStorage, table: RunIndexTable, query: ListQuery): ListAnswer {
  return runIndexPage(sql, table, query);
}
