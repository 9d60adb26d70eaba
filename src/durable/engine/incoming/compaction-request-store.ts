// Compactions the person asked for (POST /v1/runs/:id/compact) that happen before a model call:
// each is kept by the number of that call over the whole run, so every segment that reaches it, and
// every replay of that segment, sees the same request at the same point (the loop's
// compactionRequests). Written only while no slice runs, when the run's next model call has not
// begun. This module alone reads and writes the table.
import type { CompactionRequest } from "../../../loop/types";

export const COMPACTION_REQUEST_TABLE = `CREATE TABLE IF NOT EXISTS compaction_request (before_step INTEGER PRIMARY KEY, instructions TEXT)`;

/** A compaction before the run's model call `beforeStep` (counted over the whole run from 1); a newer request for the same call replaces it. */
export function requestCompaction(sql: SqlStorage, beforeStep: number, instructions: string | undefined): void {
  sql.exec(
    "INSERT INTO compaction_request (before_step, instructions) VALUES (?, ?) ON CONFLICT (before_step) DO UPDATE SET instructions = excluded.instructions",
    beforeStep,
    instructions ?? null,
  );
}

/** The requests a segment whose loop starts after `stepsBefore` model calls may meet, as its loop counts its calls. */
export function compactionRequestsAfter(sql: SqlStorage, stepsBefore: number): CompactionRequest[] {
  return requestsOf(
    sql.exec<{ before_step: number; instructions: string | null }>("SELECT before_step, instructions FROM compaction_request WHERE before_step > ? ORDER BY before_step", stepsBefore).toArray(),
    stepsBefore,
  );
}

/**
 * compactionRequestsAfter as a column of the segment's own read (segment-store.ts), after the
 * segment's `steps_before`: one JSON array of [before_step, instructions], in order.
 */
export const COMPACTION_REQUESTS_COLUMN = "(SELECT json_group_array(json_array(before_step, instructions) ORDER BY before_step) FROM compaction_request WHERE before_step > segment.steps_before)";

/** COMPACTION_REQUESTS_COLUMN's value, for a segment after `stepsBefore` model calls. */
export function compactionRequestsOf(column: SqlStorageValue | undefined, stepsBefore: number): CompactionRequest[] {
  const rows = (JSON.parse(String(column)) as [number, string | null][]).map(([before_step, instructions]) => ({ before_step: Number(before_step), instructions }));
  return requestsOf(rows, stepsBefore);
}

function requestsOf(rows: readonly { before_step: number; instructions: string | null }[], stepsBefore: number): CompactionRequest[] {
  return rows.map((row) => (row.instructions === null ? { step: row.before_step - stepsBefore } : { step: row.before_step - stepsBefore, instructions: row.instructions }));
}

/** The requests before model calls up to `step` (a fork's prefix keeps them), counted over the whole run. */
export function compactionRequestsUpTo(sql: SqlStorage, step: number): { beforeStep: number; instructions?: string }[] {
  return sql
    .exec<{ before_step: number; instructions: string | null }>("SELECT before_step, instructions FROM compaction_request WHERE before_step <= ? ORDER BY before_step", step)
    .toArray()
    .map((row) => (row.instructions === null ? { beforeStep: row.before_step } : { beforeStep: row.before_step, instructions: row.instructions }));
}

/** Writes a fork's prefix's requests, inside the caller's transaction. */
export function insertCompactionRequests(sql: SqlStorage, requests: readonly { beforeStep: number; instructions?: string }[]): void {
  for (const request of requests) requestCompaction(sql, request.beforeStep, request.instructions);
}
