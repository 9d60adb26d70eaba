// How long an inbox keeps its events, and what a deleted run leaves in them. Events older than
// INBOX_EVENTS_DAYS are trimmed (the newest is always kept, so seq never starts again); a client
// whose cursor is older than the oldest kept event gets 410 cursor-expired and lists again. A run's
// deletion redacts its events: their summaries keep only the run's id, status, counters and times,
// never a question, an input, metadata or tags.
import type { InboxEvent } from "../../api/types";

/** SQL over the inbox's `event` table: an index to find a run's events without reading every one. */
export const INBOX_EVENT_INDEX = `CREATE INDEX IF NOT EXISTS event_run ON event (json_extract(body, '$.run.id'))`;

/** Events are trimmed a page at a time: each change applied trims at most this many. */
const TRIM_PAGE = 500;

/** Trims events logged before `cutoff` (ISO time), oldest first, keeping the newest event. */
export function trimEvents(sql: SqlStorage, cutoff: string): number {
  const rows = sql
    .exec<{ seq: number }>("SELECT seq FROM event WHERE at < ? AND seq < (SELECT MAX(seq) FROM event) ORDER BY seq LIMIT ?", cutoff, TRIM_PAGE)
    .toArray();
  for (const { seq } of rows) {
    sql.exec("DELETE FROM event WHERE seq = ?", seq);
    sql.exec("DELETE FROM spill WHERE key = ?", `event/${seq}`);
  }
  return rows.length;
}

/** The oldest seq the inbox still holds, or undefined when it holds none. */
export function oldestSeq(sql: SqlStorage): number | undefined {
  const row = sql.exec<{ oldest: number | null }>("SELECT MIN(seq) AS oldest FROM event").one();
  return row.oldest === null ? undefined : Number(row.oldest);
}

/** What a summary keeps once its run was deleted. */
const REDACTED_FIELDS = ["$.run.waiting", "$.run.metadata", "$.run.tags", "$.run.stoppedBy"];

/** Strips the run's question, input, metadata and tags from every event of `runId` (its deletion's included). */
export function redactRun(sql: SqlStorage, runId: string): void {
  sql.exec(
    `UPDATE event SET body = json_set(json_remove(body, ${REDACTED_FIELDS.map(() => "?").join(", ")}), '$.redacted', json('true'))
     WHERE json_extract(body, '$.run.id') = ? AND body NOT LIKE '@%'`,
    ...REDACTED_FIELDS,
    runId,
  );
}

/** A deleted run's own deletion event, as it is logged and sent: redacted like its earlier ones. */
export function redactedEvent(event: InboxEvent): InboxEvent {
  const { waiting: _waiting, metadata: _metadata, tags: _tags, stoppedBy: _stoppedBy, ...run } = event.run;
  return { ...event, run, redacted: true };
}
