// A subject's inbox in SQLite: the index of its runs (one row per run, the newest change applied)
// and its own event log (the `event` table of ../events/event-log.ts, gap-free seq from 1). A change is
// applied only when its version is newer than the row's, so redelivered and late changes change
// nothing; a deleted run keeps a row without a summary, so a late change cannot bring it back.
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import { runIndexPage } from "../storage/run-page";
import { appendEvent, EVENT_TABLE, newestSeq, type LoggedEvent } from "../events/log/event-log";
import { SPILL_TABLE } from "../storage/spill";
import { tableExists } from "../storage/sqlite-tables";
import { addTicketColumns, TICKET_TABLE } from "../events/readers/ticket-store";
import { RESERVATION_TABLES, settle } from "./spend-store";
import { REVOCATION_TABLES } from "./revocation-store";
import { INBOX_EVENT_INDEX, redactedEvent, redactRun, trimEvents } from "./inbox-retention";

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS inbox (subject TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS run_index (
     run_id TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     summary TEXT,
     deleted INTEGER NOT NULL DEFAULT 0
   )`,
  // Newest first, with or without a status filter: the listing reads one index range per page.
  `CREATE INDEX IF NOT EXISTS run_index_created ON run_index (deleted, created_at DESC, run_id DESC)`,
  `CREATE INDEX IF NOT EXISTS run_index_status ON run_index (deleted, status, created_at DESC, run_id DESC)`,
  EVENT_TABLE,
  TICKET_TABLE,
  SPILL_TABLE,
  ...RESERVATION_TABLES,
  ...REVOCATION_TABLES,
  INBOX_EVENT_INDEX,
];

/** True once anything was written here; reading an inbox that never was must leave no storage behind. */
export function hasInbox(sql: SqlStorage): boolean {
  return tableExists(sql, "inbox");
}

export function migrateInbox(sql: SqlStorage): void {
  for (const statement of STATEMENTS) sql.exec(statement);
  addTicketColumns(sql);
}

/** The inbox's subject, written by its first change. */
export function inboxSubject(sql: SqlStorage): string | undefined {
  if (!hasInbox(sql)) return undefined;
  return sql.exec<{ subject: string }>("SELECT subject FROM inbox LIMIT 1").toArray()[0]?.subject;
}

/** The inbox's subject is written by its first change or reservation. */
export function claimSubject(sql: SqlStorage, subject: string): void {
  if (inboxSubject(sql) === undefined) sql.exec("INSERT INTO inbox (subject) VALUES (?)", subject);
}

/**
 * Inside a transaction: the changes newer than the index holds, applied and logged in order; each
 * moves the run's reservations on (spend-store.ts) in the same transaction, so once only. A
 * deletion redacts the run's events (inbox-retention.ts); events logged before `trimBefore` (ISO
 * time) go.
 */
export function applyChanges(sql: SqlStorage, subject: string, changes: readonly InboxChange[], at: string, trimBefore?: string): LoggedEvent[] {
  claimSubject(sql, subject);
  const logged: LoggedEvent[] = [];
  for (const change of changes) {
    const { run } = change.event;
    const held = sql.exec<{ version: number }>("SELECT version FROM run_index WHERE run_id = ?", run.id).toArray()[0];
    if (held !== undefined && Number(held.version) >= change.version) continue;
    const deleted = change.event.type === "run-deleted";
    sql.exec(
      `INSERT INTO run_index (run_id, version, status, created_at, summary, deleted) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, status = excluded.status, summary = excluded.summary, deleted = excluded.deleted`,
      run.id, change.version, run.status, run.createdAt, deleted ? null : JSON.stringify(run), deleted ? 1 : 0,
    );
    settle(sql, { runId: run.id, version: change.version, ended: deleted || change.event.type === "run-ended", spentUsd: run.spentUsd });
    const event = appendEvent(sql, deleted ? redactedEvent(change.event) : change.event, at);
    if (event !== undefined) logged.push(event);
    if (deleted) redactRun(sql, run.id);
  }
  if (trimBefore !== undefined) trimEvents(sql, trimBefore);
  return logged;
}

/** The version of the change the index holds for the run, if it holds the run. */
export function runVersion(sql: SqlStorage, runId: string): number | undefined {
  if (!hasInbox(sql)) return undefined;
  const row = sql.exec<{ version: number }>("SELECT version FROM run_index WHERE run_id = ?", runId).toArray()[0];
  return row === undefined ? undefined : Number(row.version);
}

/** One page, newest first (creation time, then id), after `query.after` when given; with the stream's newest seq. */
export function listRuns(sql: SqlStorage, query: ListQuery): ListAnswer {
  if (!hasInbox(sql)) return { runs: [], lastSeq: 0 };
  const page = runIndexPage(sql, "run_index", query);
  // Read in the same turn as the page: a client that follows the stream after it misses nothing.
  return { ...page, lastSeq: newestSeq(sql) };
}
