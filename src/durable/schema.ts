// The run object's SQLite tables. One run per object, so the run table holds one row.
const STATEMENTS = [
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
     spent_usd REAL NOT NULL,
     final_text TEXT,
     final TEXT,
     waiting TEXT,
     error TEXT,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
  // The request that created the run, written once and kept apart so that the small run row,
  // updated on every step, never rewrites it.
  `CREATE TABLE IF NOT EXISTS run_body (body TEXT NOT NULL)`,
  // A segment starts at creation and again after each answer or new message: the history it
  // starts from, the person's approvals, and the history it ended with.
  `CREATE TABLE IF NOT EXISTS segment (
     n INTEGER PRIMARY KEY,
     messages TEXT NOT NULL,
     approvals TEXT NOT NULL,
     steps_before INTEGER NOT NULL,
     spent_before REAL NOT NULL,
     result TEXT
   )`,
  `CREATE TABLE IF NOT EXISTS journal (key TEXT PRIMARY KEY, value TEXT NOT NULL, cost REAL NOT NULL)`,
  // seq is the gap-free event counter; dedupe makes an event written before a step idempotent.
  `CREATE TABLE IF NOT EXISTS event (seq INTEGER PRIMARY KEY, dedupe TEXT UNIQUE, at TEXT NOT NULL, body TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS once_started (key TEXT PRIMARY KEY)`,
  `CREATE TABLE IF NOT EXISTS answer (call_id TEXT PRIMARY KEY, body TEXT NOT NULL)`,
];

/** True once a run was created here. Probing an unknown id must leave no storage behind, so tables are made only by create. */
export function hasRun(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run'").toArray().length > 0;
}

export function migrate(sql: SqlStorage): void {
  for (const statement of STATEMENTS) sql.exec(statement);
}
