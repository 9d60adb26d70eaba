// An event log: gap-free seq from 1, each event stored as the exact JSON text clients get (spilled
// when it is too large for its row). A run's events, and a subject's inbox events.
import type { InboxEvent, RunEvent } from "../api/types";
import { spillText, unspillText } from "./spill";

export type LoggedEvent = { seq: number; text: string };

function insert(sql: SqlStorage, seq: number, at: string, text: string, dedupe: string | null): void {
  // A clash on seq would be a bug and fails loudly.
  sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, ?, ?, ?)", seq, dedupe, at, spillText(sql, `event/${seq}`, text));
}

/**
 * Appends one event with the next seq. With a dedupe key, an event already logged under that key
 * is not logged again (events written before a step may be written again when the step reruns).
 */
export function appendEvent(sql: SqlStorage, event: RunEvent | InboxEvent, at: string, dedupe?: string): LoggedEvent | undefined {
  if (dedupe !== undefined && sql.exec("SELECT 1 FROM event WHERE dedupe = ?", dedupe).toArray().length > 0) return undefined;
  const seq = lastSeq(sql) + 1;
  const text = JSON.stringify({ seq, at, ...event });
  insert(sql, seq, at, text, dedupe ?? null);
  return { seq, text };
}

/** Appends a step's events with consecutive seqs (inside the step's transaction). */
export function appendStepEvents(sql: SqlStorage, events: readonly RunEvent[], at: string): LoggedEvent[] {
  let seq = lastSeq(sql);
  return events.map((event) => {
    seq++;
    const text = JSON.stringify({ seq, at, ...event });
    insert(sql, seq, at, text, null);
    return { seq, text };
  });
}

/** The newest event's seq (0 before the first): SQLite reads the largest rowid directly. */
export function lastSeq(sql: SqlStorage): number {
  return Number(sql.exec<{ last: number }>("SELECT COALESCE(MAX(seq), 0) AS last FROM event").one().last);
}

export function eventsAfter(sql: SqlStorage, after: number): LoggedEvent[] {
  return sql
    .exec<{ seq: number; body: string }>("SELECT seq, body FROM event WHERE seq > ? ORDER BY seq", after)
    .toArray()
    .map((row) => ({ seq: Number(row.seq), text: unspillText(sql, String(row.body)) }));
}
