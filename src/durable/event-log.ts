// The run's event log: gap-free seq from 1, each event stored as the exact JSON text clients get.
import type { RunEvent } from "../api/types";

export type LoggedEvent = { seq: number; text: string };

/**
 * Appends one event with the next seq. With a dedupe key, an event already logged under that key
 * is not logged again (events written before a step may be written again when the step reruns).
 */
export function appendEvent(sql: SqlStorage, event: RunEvent, at: string, dedupe?: string): LoggedEvent | undefined {
  const seq = lastSeq(sql) + 1;
  const text = JSON.stringify({ seq, at, ...event });
  // Only a dedupe clash is ignored; a clash on seq would be a bug and fails loudly.
  const cursor = sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, ?, ?, ?) ON CONFLICT(dedupe) DO NOTHING", seq, dedupe ?? null, at, text);
  return cursor.rowsWritten === 0 ? undefined : { seq, text };
}

/** The newest event's seq (0 before the first): SQLite reads the largest rowid directly. */
export function lastSeq(sql: SqlStorage): number {
  return Number(sql.exec<{ last: number }>("SELECT COALESCE(MAX(seq), 0) AS last FROM event").one().last);
}

export function eventsAfter(sql: SqlStorage, after: number): LoggedEvent[] {
  return sql
    .exec<{ seq: number; body: string }>("SELECT seq, body FROM event WHERE seq > ? ORDER BY seq", after)
    .toArray()
    .map((row) => ({ seq: Number(row.seq), text: String(row.body) }));
}
