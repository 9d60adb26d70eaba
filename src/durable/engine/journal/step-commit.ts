// A step's commit in one SQL statement: its journal row, its events (up to eight: its own, and the
// events held for it since the last commit — events/held-events.ts — each with its dedupe key), the
// run's counters and its span (the outbox's `otel` row) are one INSERT into the view
// `step_commit_v1`, whose INSTEAD OF trigger writes each row where it has always been. One statement
// is atomic by itself, so a step needs no explicit transaction, and the step pays one call into
// SQLite instead of four or five (each call costs about a bare insert in this runtime, and far more
// under `wrangler dev`'s local tracing; BENCHMARKS.md "The step").
// Nothing stored changes shape: the tables, rows and event texts are the ones older code wrote, so
// a database written before this view existed is read as it is; the view and its trigger are made
// when the run's object wakes (schema.ts) and dropped with the run. A view made before its events
// carried dedupe keys (no d1 column) is made again: a view holds no rows.
//
// The steps a slice runs back to back whose work answers at once are buffered and written together,
// their rows in one statement of another view, whose trigger writes them set by set (step-batch.ts;
// step-rows.ts says why that is committed exactly when one statement each was).
//
// A step that writes anything else in its transaction (a take marking its messages taken, a spend
// change), has more than eight events, or a value or event too large for its row (spill.ts) is
// written inside transactionSync around the same statement: the rare steps pay what every step paid.

import type { LoggedEvent } from "../../events/log/event-text";

export const STEP_COMMIT_VIEW = "step_commit_v1";

/**
 * How many of a step's events the statement carries; more are inserted one by one in its
 * transaction. Eight: a tool call's step with its own result, its call and a few verdicts of pure
 * checks held for it (three data guardrails: issue 50), or a turn of several calls, stays one
 * statement. An event column left NULL costs its trigger line a test of nothing.
 */
export const EVENTS_PER_STATEMENT = 8;

const eventSlots = Array.from({ length: EVENTS_PER_STATEMENT }, (_v, i) => i + 1);

/** The run's counters, as a step's trigger adds its row to them (here, and once a batch in step-batch.ts). */
export const RUN_COUNTERS = "UPDATE run SET steps = steps + NEW.steps, spent_usd = ROUND(spent_usd + NEW.usd, 6), updated_at = NEW.at, stop_reason = COALESCE(NEW.stop_reason, stop_reason);";

/** Made after every table (schema.ts): the view's columns are the statement's parameters. */
export const STEP_COMMIT_STATEMENTS = [
  `CREATE VIEW IF NOT EXISTS ${STEP_COMMIT_VIEW} AS SELECT
     NULL AS key, NULL AS value, NULL AS cost, NULL AS usd, NULL AS steps, NULL AS stop_reason, NULL AS at,
     NULL AS seq, ${eventSlots.map((i) => `NULL AS e${i}`).join(", ")}, ${eventSlots.map((i) => `NULL AS d${i}`).join(", ")}, NULL AS span_key, NULL AS span, NULL AS now_ms`,
  `CREATE TRIGGER IF NOT EXISTS ${STEP_COMMIT_VIEW}_insert INSTEAD OF INSERT ON ${STEP_COMMIT_VIEW} BEGIN
     INSERT INTO journal (key, value, cost) VALUES (NEW.key, NEW.value, NEW.cost);
${eventSlots.map((i) => `     INSERT INTO event (seq, dedupe, at, body) SELECT NEW.seq${i === 1 ? "" : ` + ${i - 1}`}, NEW.d${i}, NEW.at, NEW.e${i} WHERE NEW.e${i} IS NOT NULL;`).join("\n")}
     ${RUN_COUNTERS}
     INSERT INTO outbox (channel, event_id, type, version, body, created_at, next_at) SELECT 'otel', NEW.span_key, 'step', 0, NEW.span, NEW.now_ms, NEW.now_ms WHERE NEW.span IS NOT NULL;
   END`,
];

/**
 * The view as an older release made it — before its events carried dedupe keys, or when it carried
 * three events — dropped (with its trigger) so that STEP_COMMIT_STATEMENTS make it anew. Run when
 * the object wakes (schema.ts).
 */
export function dropOlderStepCommitView(sql: SqlStorage): void {
  const view = sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", STEP_COMMIT_VIEW).toArray()[0];
  if (view !== undefined && !view.sql.includes(`NULL AS d${EVENTS_PER_STATEMENT},`)) sql.exec(`DROP VIEW ${STEP_COMMIT_VIEW}`);
}

export type StepRow = {
  key: string;
  /** The stored value (or its spill reference). */
  value: string;
  cost: number;
  /** The cost as the run's spend counts it (whole micro-dollars). */
  usd: number;
  /** Model calls this step adds to the run's count (1 or 0). */
  steps: number;
  stopReason?: string;
  at: string;
  /** The first event's seq; the others follow. */
  seq: number;
  /**
   * The first EVENTS_PER_STATEMENT events: each one's stored text (or spill reference) and dedupe
   * key (null for a step's own); `spliced`, the event as logged when its text is its head and a
   * list's end (event-text.ts), which a batch writes without escaping the end again.
   */
  events: readonly { body: string; dedupe: string | null; spliced?: LoggedEvent | undefined }[];
  /** The step's span, as the outbox keeps it until a batch is sent (span-writer.ts). */
  span?: { key: string; seed: string; nowMs: number };
};

/** The statement's parameters: the view's columns. */
const COLUMNS = 11 + 2 * EVENTS_PER_STATEMENT;

/**
 * The one statement, its values in the view's column order. Its text is short on purpose: `wrangler
 * dev`'s local tracing records each statement's text with every call and digests it after the
 * invocation, so a step pays for every character of it (BENCHMARKS.md, issue 46, 2026-12-06).
 */
const INSERT_STEP_ROW = `INSERT INTO ${STEP_COMMIT_VIEW} VALUES (${Array.from({ length: COLUMNS }, () => "?").join(",")})`;

/** A row's values in the view's column order (the statement's parameters). */
export function stepRowValues(row: StepRow): SqlStorageValue[] {
  return [
    row.key, row.value, row.cost, row.usd, row.steps, row.stopReason ?? null, row.at, row.seq,
    ...eventSlots.map((i) => row.events[i - 1]?.body ?? null),
    ...eventSlots.map((i) => row.events[i - 1]?.dedupe ?? null),
    row.span?.key ?? null, row.span?.seed ?? null, row.span?.nowMs ?? null,
  ];
}

export function insertStepRow(sql: SqlStorage, row: StepRow): void {
  sql.exec(INSERT_STEP_ROW, ...stepRowValues(row));
}
