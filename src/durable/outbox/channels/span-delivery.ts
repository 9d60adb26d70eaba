// Delivering the run's spans (the outbox's `otel` rows) at least once: the oldest due rows, at
// most SPAN_BATCH_ROWS a request, one request in flight at a time. As every outbox attempt, the
// lease is committed first (the rows are due again should the object die with the request in
// flight: they are sent again, the same bytes under the same span ids), then the request is sent,
// never awaited by the run. A collector that took them: the rows go. One that failed: tried again
// after min(1 s × 2^(n−1), 5 min) × a factor in [0.5, 1). A refusal for good, or a span still
// unsent 24 h after its step: dropped, and counted in the log (`ratchet.spans-dropped`).
// A step's row is its span's seed (src/durable/telemetry/span-seed.ts): its span is made here, when
// the batch is sent, never in the step; a segment's or a wait's row is its span's JSON, sent as it is.
import { dropPendingBefore, deleteRows, dueRows, leaseRow, recordInboxFailure, type OutboxRow } from "../outbox-store";
import type { SpanSend } from "./span-sender";
import { SPAN_EXPORT_TIMEOUT_MS } from "./span-sender";
import { expandSeed, SEED_TYPE, type SeedRun } from "../../telemetry/span-seed";

/** The most spans one export request carries. */
export const SPAN_BATCH_ROWS = 512;
/** A span not taken this long after its step is dropped. */
export const SPAN_WINDOW_MS = 24 * 3600_000;
export const SPAN_FIRST_DELAY_MS = 1_000;
export const SPAN_MAX_DELAY_MS = 5 * 60_000;

/** How long after failed attempt number `attempts` (1-based) the next export of a batch waits. `random` is in [0, 1). */
export function spanRetryDelay(attempts: number, random: number): number {
  const nominal = Math.min(SPAN_FIRST_DELAY_MS * 2 ** Math.max(0, attempts - 1), SPAN_MAX_DELAY_MS);
  return Math.round(nominal * (0.5 + 0.5 * random));
}

export function logSpansDropped(count: number, reason: string): void {
  console.log(JSON.stringify({ msg: "ratchet.spans-dropped", count, reason }));
}

export type SpanDeliveryDeps = {
  sql: SqlStorage;
  now: () => number;
  random: () => number;
  sendSpans: SpanSend;
  /** What a step seed's spans take from the run (span-writer.ts seedRunOf); undefined when the run is gone. */
  seedRun?: () => SeedRun | undefined;
};

/** The spans' JSON texts of a batch's rows: a span's row as it is, a step's seed made into its spans now. */
function spanBodies(deps: SpanDeliveryDeps, rows: readonly OutboxRow[]): string[] {
  const run = rows.some((row) => row.type === SEED_TYPE) ? deps.seedRun?.() : undefined;
  const bodies: string[] = [];
  let lost = 0;
  for (const row of rows) {
    if (row.type !== SEED_TYPE) bodies.push(row.body);
    else if (run === undefined) lost++;
    else for (const span of expandSeed(row.body, run)) bodies.push(JSON.stringify(span));
  }
  if (lost > 0) logSpansDropped(lost, "the run was gone before its steps' spans were made");
  return bodies;
}

/**
 * Starts one export of the due spans, unless none is due: returns the attempt (which records what
 * came back, and then resolves), or undefined. `quietly` runs a write whose table may be gone.
 */
export function startSpanExport(deps: SpanDeliveryDeps, quietly: (write: () => void) => void): Promise<void> | undefined {
  const now = deps.now();
  const dropped = dropPendingBefore(deps.sql, "otel", now - SPAN_WINDOW_MS);
  if (dropped > 0) logSpansDropped(dropped, "not taken within 24 h");
  const rows = dueRows(deps.sql, "otel", now, SPAN_BATCH_ROWS);
  if (rows.length === 0) return undefined;
  const ids = rows.map((row) => row.id);
  const attempts = Math.max(...rows.map((row) => row.attempts)) + 1;
  const lease = now + SPAN_EXPORT_TIMEOUT_MS + 5_000;
  for (const id of ids) leaseRow(deps.sql, id, lease);
  const bodies = spanBodies(deps, rows);
  return (async () => {
    const answer = await deps.sendSpans(bodies);
    quietly(() => {
      if (answer.ok) {
        deleteRows(deps.sql, ids);
        if (answer.rejected > 0) logSpansDropped(answer.rejected, "rejected by the collector");
      } else if (!answer.retry) {
        deleteRows(deps.sql, ids);
        logSpansDropped(ids.length, answer.error);
      } else {
        recordInboxFailure(deps.sql, ids, answer.error, deps.now() + spanRetryDelay(attempts, deps.random()));
      }
    });
  })();
}
