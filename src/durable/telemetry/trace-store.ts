// What the run keeps of its trace: the `trace` table (one row: the trace id, the caller's span the
// run joined, and a link to the span that made the run, for a child run) and `trace_time` (when
// each segment started and stopped, for its invoke_agent span and the wait that follows it).
// Written at creation and with each segment's start and stop, in their transactions.
import type { SpanContext } from "../../lib/traceparent";
import { tableExists } from "../storage/sqlite-tables";
import { traceIdOf } from "./span-ids";

export const TRACE_TABLES = [
  `CREATE TABLE IF NOT EXISTS trace (trace_id TEXT NOT NULL, parent_span_id TEXT, link TEXT)`,
  `CREATE TABLE IF NOT EXISTS trace_time (segment INTEGER PRIMARY KEY, started_at INTEGER NOT NULL, ended_at INTEGER, attempt INTEGER NOT NULL DEFAULT 0)`,
];

/** The run's trace: its id, the caller's span (from `traceparent`) and the link to the span that made it. */
export type RunTrace = { traceId: string; parentSpanId?: string; link?: SpanContext };

/** At creation, in its transaction: the caller's trace when one came, else one of the run's own. */
export function insertTrace(sql: SqlStorage, runId: string, parent: SpanContext | undefined, link: SpanContext | undefined, startedAt: number): void {
  sql.exec("INSERT INTO trace (trace_id, parent_span_id, link) VALUES (?, ?, ?)", parent?.traceId ?? traceIdOf(runId), parent?.spanId ?? null, link === undefined ? null : JSON.stringify(link));
  markSegmentStart(sql, 1, startedAt);
}

/** The run's trace; a run made before traces were kept has one from its id. */
export function readTrace(sql: SqlStorage, runId: string): RunTrace {
  const row = tableExists(sql, "trace") ? sql.exec<{ trace_id: string; parent_span_id: string | null; link: string | null }>("SELECT * FROM trace LIMIT 1").toArray()[0] : undefined;
  if (row === undefined) return { traceId: traceIdOf(runId) };
  const trace: RunTrace = { traceId: row.trace_id };
  if (row.parent_span_id !== null) trace.parentSpanId = row.parent_span_id;
  if (row.link !== null) trace.link = JSON.parse(row.link) as SpanContext;
  return trace;
}

export function markSegmentStart(sql: SqlStorage, segment: number, at: number): void {
  if (tableExists(sql, "trace_time")) sql.exec("INSERT OR REPLACE INTO trace_time (segment, started_at) VALUES (?, ?)", segment, at);
}

/** Marks segment `n`'s end at `at`, and answers its times as segmentTimes would read them right after (one call into SQLite for both). */
export function markSegmentEnd(sql: SqlStorage, segment: number, at: number): SegmentTimes {
  if (!tableExists(sql, "trace_time")) return { attempt: 0 };
  const row = sql.exec<TimesRow>("UPDATE trace_time SET ended_at = ? WHERE segment = ? RETURNING started_at, ended_at, attempt", at, segment).toArray()[0];
  return timesOf(row);
}

/** A retry of a failed run goes on in its segment: a new invoke_agent span (the segment's next attempt) starts now. */
export function markSegmentRetry(sql: SqlStorage, segment: number, at: number): void {
  if (tableExists(sql, "trace_time")) sql.exec("UPDATE trace_time SET started_at = ?, ended_at = NULL, attempt = attempt + 1 WHERE segment = ?", at, segment);
}

export type SegmentTimes = { startedAt?: number; endedAt?: number; attempt: number };

/** When segment `n` (its current attempt) started and stopped (ms); a segment of an older run has no times. */
export function segmentTimes(sql: SqlStorage, segment: number): SegmentTimes {
  if (!tableExists(sql, "trace_time")) return { attempt: 0 };
  return timesOf(sql.exec<TimesRow>("SELECT started_at, ended_at, attempt FROM trace_time WHERE segment = ?", segment).toArray()[0]);
}

type TimesRow = { started_at: number; ended_at: number | null; attempt: number };

function timesOf(row: TimesRow | undefined): SegmentTimes {
  if (row === undefined) return { attempt: 0 };
  const times: SegmentTimes = { startedAt: Number(row.started_at), attempt: Number(row.attempt) };
  if (row.ended_at !== null) times.endedAt = Number(row.ended_at);
  return times;
}
