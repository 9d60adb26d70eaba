// The run's own tables (run, run_body, segment): their schema, the columns added since the first
// release, and whether a run was made here. Their reads and writes are in run-store.ts and
// segment-store.ts.
import { addMissingColumns, tableExists } from "../../storage/sqlite-tables";

/** The run's own tables: its one row, the request that made it, and its segments. */
export const RUN_TABLES = [
  `CREATE TABLE IF NOT EXISTS run (
     id TEXT PRIMARY KEY,
     model TEXT NOT NULL,
     provider TEXT NOT NULL,
     token_hash TEXT NOT NULL,
     body_hash TEXT NOT NULL,
     status TEXT NOT NULL,
     stopped_by TEXT,
     segment INTEGER NOT NULL,
     steps INTEGER NOT NULL,
     step_limit INTEGER NOT NULL DEFAULT 10,
     spent_usd REAL NOT NULL,
     final_text TEXT,
     final TEXT,
     waiting TEXT,
     error TEXT,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     delete_at INTEGER,
     stop_reason TEXT,
     subject TEXT,
     change_version INTEGER NOT NULL DEFAULT 0,
     origin TEXT,
     suspended_on TEXT,
     day_limit_usd REAL,
     schedule_id TEXT,
     fired_at TEXT,
     parent_id TEXT,
     depth INTEGER,
     root_id TEXT,
     agent TEXT,
     guardrail TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
  // The request that created the run, written once and kept apart so that the small run row,
  // updated on every step, never rewrites it.
  `CREATE TABLE IF NOT EXISTS run_body (body TEXT NOT NULL)`,
  // A segment starts at creation and again after each answer or new message: the history it
  // starts from, the person's approvals, the run's step limit while it lasts, the history it
  // ended with, and whether its loop counts its guards per question (per_question; 0 for segments
  // made before they did, which must replay as they ran).
  `CREATE TABLE IF NOT EXISTS segment (
     n INTEGER PRIMARY KEY,
     messages TEXT NOT NULL,
     approvals TEXT NOT NULL,
     steps_before INTEGER NOT NULL,
     spent_before REAL NOT NULL,
     step_limit INTEGER NOT NULL DEFAULT 10,
     result TEXT,
     per_question INTEGER NOT NULL DEFAULT 0
   )`,
];

/** Columns of RUN_TABLES added after the first release, for objects whose tables are older. */
const ADDED_COLUMNS: readonly { table: string; column: string; definition: string }[] = [
  { table: "run", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "delete_at", definition: "INTEGER" },
  { table: "run", column: "stop_reason", definition: "TEXT" },
  { table: "segment", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "subject", definition: "TEXT" },
  { table: "run", column: "change_version", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "run", column: "origin", definition: "TEXT" },
  { table: "run", column: "suspended_on", definition: "TEXT" },
  { table: "run", column: "day_limit_usd", definition: "REAL" },
  { table: "run", column: "schedule_id", definition: "TEXT" },
  { table: "run", column: "fired_at", definition: "TEXT" },
  { table: "segment", column: "per_question", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "run", column: "parent_id", definition: "TEXT" },
  { table: "run", column: "depth", definition: "INTEGER" },
  { table: "run", column: "root_id", definition: "TEXT" },
  { table: "run", column: "agent", definition: "TEXT" },
  { table: "run", column: "guardrail", definition: "TEXT" },
];

/** After RUN_TABLES were made: the columns an older object's tables lack. */
export function addRunColumns(sql: SqlStorage): void {
  addMissingColumns(sql, ADDED_COLUMNS);
}

/** True once a run was created here. Probing an unknown id must leave no storage behind, so tables are made only by create. */
export function hasRun(sql: SqlStorage): boolean {
  return tableExists(sql, "run");
}
