// The run's event log: gap-free seq from 1, each event stored as the exact JSON text clients get.
import type { RunEvent } from "../api/types";

export type LoggedEvent = { seq: number; text: string };

/**
 * Appends one event with the next seq. With a dedupe key, an event already logged under that key
 * is not logged again (events written before a step may be written again when the step reruns).
 */
export function appendEvent(sql: SqlStorage, event: RunEvent, at: string, dedupe?: string): LoggedEvent | undefined {
  if (dedupe !== undefined && sql.exec("SELECT 1 FROM event WHERE dedupe = ?", dedupe).toArray().length > 0) return undefined;
  const seq = Number(sql.exec<{ next: number }>("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM event").one().next);
  const text = JSON.stringify({ seq, at, ...event });
  sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, ?, ?, ?)", seq, dedupe ?? null, at, text);
  sql.exec("UPDATE run SET last_seq = ?", seq);
  return { seq, text };
}

export function eventsAfter(sql: SqlStorage, after: number): LoggedEvent[] {
  return sql
    .exec<{ seq: number; body: string }>("SELECT seq, body FROM event WHERE seq > ? ORDER BY seq", after)
    .toArray()
    .map((row) => ({ seq: Number(row.seq), text: String(row.body) }));
}
