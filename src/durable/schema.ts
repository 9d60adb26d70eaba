// The run object's SQLite tables. One run per object, so the run table holds one row.
import { forgetSeq } from "./event-log";
import { OUTBOX_TABLE } from "./outbox-store";
import { SPILL_TABLE } from "./spill";

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
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
  // The request that created the run, written once and kept apart so that the small run row,
  // updated on every step, never rewrites it.
  `CREATE TABLE IF NOT EXISTS run_body (body TEXT NOT NULL)`,
  // A segment starts at creation and again after each answer or new message: the history it
  // starts from, the person's approvals, the run's step limit while it lasts, and the history it
  // ended with.
  `CREATE TABLE IF NOT EXISTS segment (
     n INTEGER PRIMARY KEY,
     messages TEXT NOT NULL,
     approvals TEXT NOT NULL,
     steps_before INTEGER NOT NULL,
     spent_before REAL NOT NULL,
     step_limit INTEGER NOT NULL DEFAULT 10,
     result TEXT
   )`,
  `CREATE TABLE IF NOT EXISTS journal (key TEXT PRIMARY KEY, value TEXT NOT NULL, cost REAL NOT NULL)`,
  // seq is the gap-free event counter; dedupe makes an event written before a step idempotent.
  `CREATE TABLE IF NOT EXISTS event (seq INTEGER PRIMARY KEY, dedupe TEXT UNIQUE, at TEXT NOT NULL, body TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS once_started (key TEXT PRIMARY KEY)`,
  // Async HTTP tool calls (async-call-store.ts), by their start's step key with its segment.
  `CREATE TABLE IF NOT EXISTS async_call (
     key TEXT PRIMARY KEY,
     call_id TEXT NOT NULL,
     name TEXT NOT NULL,
     step INTEGER NOT NULL,
     started_at INTEGER NOT NULL,
     deadline INTEGER NOT NULL,
     accepted_at INTEGER,
     result TEXT,
     answered_at INTEGER,
     closed_at INTEGER,
     closed_reason TEXT
   )`,
  `CREATE TABLE IF NOT EXISTS answer (call_id TEXT PRIMARY KEY, body TEXT NOT NULL)`,
  // One-time tickets for the events endpoint, by hash; kind is who asked for one.
  `CREATE TABLE IF NOT EXISTS ticket (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER NOT NULL)`,
  SPILL_TABLE,
  OUTBOX_TABLE,
];

/** Columns added after the first release, for objects whose tables are older. */
const ADDED_COLUMNS: { table: string; column: string; definition: string }[] = [
  { table: "run", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "delete_at", definition: "INTEGER" },
  { table: "run", column: "stop_reason", definition: "TEXT" },
  { table: "segment", column: "step_limit", definition: "INTEGER NOT NULL DEFAULT 10" },
  { table: "run", column: "subject", definition: "TEXT" },
  { table: "run", column: "change_version", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "run", column: "origin", definition: "TEXT" },
  { table: "run", column: "suspended_on", definition: "TEXT" },
];

/** True once a run was created here. Probing an unknown id must leave no storage behind, so tables are made only by create. */
export function hasRun(sql: SqlStorage): boolean {
  return tableExists(sql, "run");
}

/** True when a run was here and was deleted: its id is never used again. */
export function wasDeleted(sql: SqlStorage): boolean {
  return tableExists(sql, "deleted");
}

export function tableExists(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}

export function migrate(sql: SqlStorage): void {
  for (const statement of STATEMENTS) sql.exec(statement);
  for (const { table, column, definition } of ADDED_COLUMNS) {
    if (!sql.exec(`SELECT * FROM ${table} LIMIT 0`).columnNames.includes(column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
}

/**
 * Deletes every table of the run and leaves a tombstone, in one transaction (the caller's): the
 * object then answers 404 to everything, and a create with the same id (an Idempotency-Key
 * retried after the delete) is refused. The outbox stays with the rows still to deliver (the
 * run's last changes, its deletion among them): the tombstone's alarm delivers them, then drops it.
 */
export function dropRun(sql: SqlStorage, now: string): void {
  const tables = sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .toArray()
    .map((row) => row.name)
    .filter((name) => name !== "outbox");
  for (const table of tables) sql.exec(`DROP TABLE "${table}"`);
  forgetSeq(sql);
  if (tableExists(sql, "outbox")) sql.exec("DELETE FROM outbox WHERE state != 'pending'");
  sql.exec("CREATE TABLE deleted (at TEXT NOT NULL)");
  sql.exec("INSERT INTO deleted (at) VALUES (?)", now);
}
