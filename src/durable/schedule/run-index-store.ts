// The schedule's index of its runs (`schedule_run`, a run index of src/durable/storage/run-index.ts):
// one row per run a fire made, holding the run's summary as of its newest status change, for GET
// /v1/runs?scheduleId= (the run listing's shape and keyset cursor, newest first), the view's last
// runs, and overlap. The fire writes the row first (version 0, from the created run's view); the
// run's outbox then delivers every status change at least once (src/durable/outbox). The index is
// trimmed with the runs' retention, so a schedule that fires every minute holds about a
// retention's worth of rows, not every run it ever made.
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import type { RunView } from "../../api/types";
import { summaryOf } from "../outbox/run-summary";
import { applyIndexChanges, listIndex, runIndexTables, trimIndex } from "../storage/run-index";

const TABLE = "schedule_run";

export const RUN_INDEX_TABLES = runIndexTables(TABLE);

/** Columns added after the first release: `changed_at`, when a change last reached the row (ms, the schedule's clock). */
export const RUN_INDEX_ADDED_COLUMNS = [{ table: TABLE, column: "changed_at", definition: "INTEGER" }];

/** Rows of an older release get `now` as their last change, so the trim counts their retention from the upgrade. */
export function stampUnchanged(sql: SqlStorage, now: number): void {
  sql.exec("UPDATE schedule_run SET changed_at = ? WHERE changed_at IS NULL", now);
}

/** Drops the rows of runs that ended or were deleted and that no change touched since `cutoff` (ms). Returns how many. */
export function trimRunIndex(sql: SqlStorage, cutoff: number): number {
  return trimIndex(sql, TABLE, cutoff);
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
  return applyIndexChanges(sql, TABLE, changes, now);
}

const ENDED: ReadonlySet<string> = new Set(["finished", "failed", "cancelled"]);

/** Whether the index knows the run to have ended (or to be deleted). Unknown and active runs are not. */
export function knownEnded(sql: SqlStorage, runId: string): boolean {
  const row = sql.exec<{ status: string; deleted: number }>("SELECT status, deleted FROM schedule_run WHERE run_id = ?", runId).toArray()[0];
  return row !== undefined && (Number(row.deleted) === 1 || ENDED.has(row.status));
}

/** One page, newest first (creation time, then id), after `query.after` when given. */
export function listIndexedRuns(sql: SqlStorage, query: ListQuery): ListAnswer {
  return listIndex(sql, TABLE, query);
}
