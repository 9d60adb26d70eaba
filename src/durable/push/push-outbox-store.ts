// The inbox's push outbox: one row per push still to send (a run's change, for one subscription),
// written in the transaction that applied the change, so a push is never lost and never sent for a
// change that did not happen. A row is deleted once the push service took it, gave it up for good,
// or its subscription went; until then it is due at `next_at`.
import type { PushEventType } from "../../api/schemas/subject/push-schemas";
import { tableExists } from "../storage/sqlite-tables";

export const PUSH_OUTBOX_TABLE = `CREATE TABLE IF NOT EXISTS push_outbox (
  id INTEGER PRIMARY KEY,
  endpoint TEXT NOT NULL,
  run_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  last_error TEXT
)`;

export type PushRow = { id: number; endpoint: string; runId: string; version: number; kind: PushEventType; payload: string; attempts: number; createdAt: number; nextAt: number };

type Raw = Record<string, SqlStorageValue>;

function rowOf(raw: Raw): PushRow {
  return {
    id: Number(raw.id),
    endpoint: String(raw.endpoint),
    runId: String(raw.run_id),
    version: Number(raw.version),
    kind: String(raw.kind) as PushEventType,
    payload: String(raw.payload),
    attempts: Number(raw.attempts),
    createdAt: Number(raw.created_at),
    nextAt: Number(raw.next_at),
  };
}

function hasPushOutbox(sql: SqlStorage): boolean {
  return tableExists(sql, "push_outbox");
}

/** Inside the change's transaction: due at once. */
export function insertPush(sql: SqlStorage, row: { endpoint: string; runId: string; version: number; kind: PushEventType; payload: string }, now: number): void {
  sql.exec(
    "INSERT INTO push_outbox (endpoint, run_id, version, kind, payload, created_at, next_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    row.endpoint, row.runId, row.version, row.kind, row.payload, now, now,
  );
}

/** Rows due at `now`, oldest first, at most `limit`. */
export function duePushes(sql: SqlStorage, now: number, limit: number): PushRow[] {
  if (!hasPushOutbox(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM push_outbox WHERE next_at <= ? ORDER BY id LIMIT ?", now, limit).toArray().map(rowOf);
}

/** Every row still to send, oldest first (for tests and the subscription's view). */
export function pendingPushes(sql: SqlStorage): PushRow[] {
  if (!hasPushOutbox(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM push_outbox ORDER BY id").toArray().map(rowOf);
}

/** When the earliest row is due, if any. */
export function nextPushAt(sql: SqlStorage): number | undefined {
  if (!hasPushOutbox(sql)) return undefined;
  const row = sql.exec<{ at: number | null }>("SELECT MIN(next_at) AS at FROM push_outbox").one();
  return row.at === null ? undefined : Number(row.at);
}

/** Before an attempt, committed before anything is sent: counted, and due again at `nextAt` should it never report back. */
export function leasePush(sql: SqlStorage, id: number, nextAt: number): void {
  sql.exec("UPDATE push_outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", nextAt, id);
}

/** A failed attempt that will be tried again at `nextAt`. */
export function retryPush(sql: SqlStorage, id: number, error: string, nextAt: number): void {
  sql.exec("UPDATE push_outbox SET last_error = ?, next_at = ? WHERE id = ?", error, nextAt, id);
}

/** Sent, given up, or no longer worth sending. */
export function deletePush(sql: SqlStorage, id: number): void {
  sql.exec("DELETE FROM push_outbox WHERE id = ?", id);
}

/** A subscription went: its pushes go with it. */
export function deletePushesTo(sql: SqlStorage, endpoint: string): void {
  if (hasPushOutbox(sql)) sql.exec("DELETE FROM push_outbox WHERE endpoint = ?", endpoint);
}
