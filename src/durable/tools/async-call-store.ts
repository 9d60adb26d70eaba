// The run's async HTTP tool calls (docs/http-tools.md "Tools that answer later"), one row per call
// by its start's step key with the segment (`s1/start/3/toolu_01A7`). This module alone reads and
// writes the table. A call is recorded before its start is sent; the first result a tool server
// sends is kept as canonical JSON (a repeat of it is harmless, another one a conflict); the loop's
// wait takes it from here. A call is closed when the loop is done with it (it took the result, the
// deadline passed, the start was answered at once, or the run stopped): a result without one
// stored before is then refused.
import type { CallResultBody, PendingCall } from "../../api/types";
import type { Settled } from "../../tools/tool-deps";
import { outputOfAnswer } from "../../tools/http/http-answer";

export const ASYNC_CALL_TABLE = `CREATE TABLE IF NOT EXISTS async_call (
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
)`;

export type AsyncCallRow = {
  key: string;
  callId: string;
  name: string;
  step: number;
  startedAt: number;
  deadline: number;
  acceptedAt?: number;
  /** The first result, canonical JSON of the callback's body. */
  result?: string;
  answeredAt?: number;
  closedAt?: number;
  closedReason?: string;
};

type Raw = Record<string, SqlStorageValue>;

function rowOf(raw: Raw): AsyncCallRow {
  const row: AsyncCallRow = {
    key: String(raw.key),
    callId: String(raw.call_id),
    name: String(raw.name),
    step: Number(raw.step),
    startedAt: Number(raw.started_at),
    deadline: Number(raw.deadline),
  };
  if (raw.accepted_at !== null) row.acceptedAt = Number(raw.accepted_at);
  if (raw.result !== null) row.result = String(raw.result);
  if (raw.answered_at !== null) row.answeredAt = Number(raw.answered_at);
  if (raw.closed_at !== null) row.closedAt = Number(raw.closed_at);
  if (raw.closed_reason !== null) row.closedReason = String(raw.closed_reason);
  return row;
}

export function readCall(sql: SqlStorage, key: string): AsyncCallRow | undefined {
  const raw = sql.exec<Raw>("SELECT * FROM async_call WHERE key = ?", key).toArray()[0];
  return raw === undefined ? undefined : rowOf(raw);
}

/** Records a call about to be started; a call recorded before (a resend) keeps its first record, deadline and all. */
export function registerCall(sql: SqlStorage, call: Pick<AsyncCallRow, "key" | "callId" | "name" | "step" | "startedAt" | "deadline">): AsyncCallRow {
  sql.exec(
    "INSERT INTO async_call (key, call_id, name, step, started_at, deadline) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
    call.key, call.callId, call.name, call.step, call.startedAt, call.deadline,
  );
  return readCall(sql, call.key)!;
}

/** The tool server took the job. The row when this is news (to log tool-started once), else undefined. */
export function acceptCall(sql: SqlStorage, key: string, now: number): AsyncCallRow | undefined {
  const changed = sql.exec("UPDATE async_call SET accepted_at = ? WHERE key = ? AND accepted_at IS NULL", now, key).rowsWritten;
  return changed > 0 ? readCall(sql, key) : undefined;
}

export function closeCall(sql: SqlStorage, key: string, reason: string, now: number): void {
  sql.exec("UPDATE async_call SET closed_at = ?, closed_reason = ? WHERE key = ? AND closed_at IS NULL", now, reason, key);
}

/** Closes every call still open: the run stopped, and the loop answered them "Not run: <reason>.". */
export function closeOpenCalls(sql: SqlStorage, reason: string, now: number): void {
  sql.exec("UPDATE async_call SET closed_at = ?, closed_reason = ? WHERE closed_at IS NULL", now, reason);
}

/**
 * What the loop's wait finds: the result (the call is closed as taken; a replay after a crash
 * before the wait's commit finds the same result), "expired" past the deadline without one (the
 * call is closed, so a late result is refused), or "pending".
 */
export function settleCall(sql: SqlStorage, key: string, now: number): Settled {
  const row = readCall(sql, key);
  // A call with no record cannot get a result any more: treated as past its deadline.
  if (row === undefined) return { kind: "expired" };
  if (row.result !== undefined) {
    closeCall(sql, key, "taken", now);
    return { kind: "result", output: outputOfAnswer(JSON.parse(row.result) as CallResultBody) };
  }
  if (now >= row.deadline || row.closedAt !== undefined) {
    closeCall(sql, key, "deadline", now);
    return { kind: "expired" };
  }
  return { kind: "pending" };
}

export type Delivery =
  | { kind: "stored"; row: AsyncCallRow }
  | { kind: "repeat"; row: AsyncCallRow }
  | { kind: "refused"; message: string }
  | { kind: "unknown" };

const CLOSED: Record<string, string> = {
  deadline: "it passed its deadline and the model was told so",
  immediate: "its start was answered at once",
  cancel: "the run was cancelled",
};

/** A tool server's result for `key`: the first one wins; the same one again is harmless; any other is refused. */
export function deliverResult(sql: SqlStorage, key: string, canonical: string, now: number): Delivery {
  const row = readCall(sql, key);
  if (row === undefined) return { kind: "unknown" };
  if (row.result !== undefined) {
    if (row.result === canonical) return { kind: "repeat", row };
    return { kind: "refused", message: `Call ${row.callId} already has a result; a different one is refused.` };
  }
  if (row.closedAt !== undefined) {
    const why = CLOSED[row.closedReason ?? ""] ?? `the run stopped (${row.closedReason ?? "closed"})`;
    return { kind: "refused", message: `Call ${row.callId} no longer takes a result: ${why}.` };
  }
  if (now >= row.deadline) return { kind: "refused", message: `Call ${row.callId} no longer takes a result: it passed its deadline.` };
  sql.exec("UPDATE async_call SET result = ?, answered_at = ? WHERE key = ?", canonical, now, key);
  return { kind: "stored", row: readCall(sql, key)! };
}

/**
 * Calls the tool server took and has not answered, which the run view lists: a column of the run's
 * read (run-store.ts), one JSON array in their order, so the view is one call into SQLite.
 */
export const PENDING_CALLS_COLUMN = `(SELECT json_group_array(json_array(call_id, name, step, started_at, deadline) ORDER BY started_at, key)
   FROM async_call WHERE accepted_at IS NOT NULL AND result IS NULL AND closed_at IS NULL)`;

/** PENDING_CALLS_COLUMN's value as the view shows it. */
export function pendingCallsOf(column: SqlStorageValue | undefined): PendingCall[] {
  const rows = JSON.parse(String(column)) as [string, string, number, number, number][];
  return rows.map(([callId, name, step, startedAt, deadline]) => ({ callId: String(callId), name: String(name), step: Number(step), startedAt: new Date(Number(startedAt)).toISOString(), deadline: new Date(Number(deadline)).toISOString() }));
}
