// Several steps' rows (step-rows.ts buffers them) in one statement whose work is set-based: one
// INSERT of one row into the view `step_rows_v1`, whose INSTEAD OF trigger writes all the journal
// rows from one JSON array, all the events from another, the run's counters once, and all the spans
// from a third. The single step's view (step-commit.ts) runs its trigger once per row: ten
// statements a row (its journal row, eight event slots tested whether used or not, the run's row,
// its span); here a batch of any size is four, and each JSON text is read once.
//
// It stores what one statement a row stores, byte for byte (test/durable/step-rows.test.ts):
// - the journal rows, the events and the spans are inserted in the rows' order (json_each walks an
//   array in order), so the journal's and the outbox's rowids follow as they did; an event's seq
//   is its step's first seq plus its place, as the single trigger's `NEW.seq + i`;
// - the run's row is updated once with what the single trigger's updates come to: the steps added
//   up; the spend added as whole micro-dollars (lib/money.ts `addUsd`, exact) and rounded once —
//   each step's cost and the run's spend are whole micro-dollars, so a double's error on a sum
//   stays far under the half micro-dollar that one rounding or one a row would correct, and both
//   give the double nearest the same decimal; the last row's `at`; the last stop reason given.
// One statement is atomic with its trigger: all the rows or none, as before.
//
// A Durable Object's `sql.exec` runs several statements separated by `;`, but binds its parameters
// to the last one only (developers.cloudflare.com, durable-objects/api/sql-storage), so the four
// writes are one statement only through a trigger; and a statement takes at most 100 parameters,
// so the rows go as JSON texts, one parameter each.
import { addUsd } from "../../../lib/money";
import type { LoggedEvent } from "../../events/log/event-text";
import { insertStepRow, RUN_COUNTERS, type StepRow } from "./step-commit";

export const STEP_ROWS_VIEW = "step_rows_v1";

/** Made after every table (schema.ts), beside the single step's view. */
export const STEP_ROWS_STATEMENTS = [
  `CREATE VIEW IF NOT EXISTS ${STEP_ROWS_VIEW} AS SELECT NULL AS journal, NULL AS events, NULL AS spans, NULL AS steps, NULL AS usd, NULL AS at, NULL AS stop_reason`,
  `CREATE TRIGGER IF NOT EXISTS ${STEP_ROWS_VIEW}_insert INSTEAD OF INSERT ON ${STEP_ROWS_VIEW} BEGIN
     INSERT INTO journal (key, value, cost) SELECT value->>0, value->>1, value->>2 FROM json_each(NEW.journal);
     INSERT INTO event (seq, dedupe, at, body) SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(NEW.events);
     ${RUN_COUNTERS}
     INSERT INTO outbox (channel, event_id, type, version, body, created_at, next_at) SELECT 'otel', value->>0, 'step', 0, value->>1, value->>2, value->>2 FROM json_each(NEW.spans);
   END`,
];

/**
 * A buffered row's parts as the batch statement reads them, made once, when it is buffered: its
 * journal row, its events and its span, each a JSON array's items (`events` and `span` may be empty).
 */
export type StepRowJson = { journal: string; events: string; span: string };

/**
 * An event's item, `JSON.stringify([seq, dedupe, at, body])`; when `body` is a head and a list's
 * end (event-text.ts, `spliced`), the item of the head with the end's characters, escaped once per
 * list, put before its closing `"]`: the same characters (a JSON text's head ends, and the end
 * begins, with ASCII, so escaping the two apart is escaping them together). One JSON.stringify, as
 * for any other event.
 */
export function eventJson(seq: number, dedupe: string | null, at: string, body: string, spliced?: LoggedEvent): string {
  const head = spliced?.head;
  const tail = spliced?.tail;
  if (head === undefined || tail === undefined || spliced?.text !== body) return JSON.stringify([seq, dedupe, at, body]);
  return JSON.stringify([seq, dedupe, at, head]).slice(0, -2) + tail.json + "\"]";
}

/** A row's parts as JSON (see StepRowJson). */
export function stepRowJson(row: StepRow): StepRowJson {
  return {
    journal: JSON.stringify([row.key, row.value, row.cost]),
    events: row.events.map((event, i) => eventJson(row.seq + i, event.dedupe, row.at, event.body, event.spliced)).join(","),
    span: row.span === undefined ? "" : JSON.stringify([row.span.key, row.span.seed, row.span.nowMs]),
  };
}

/** Its length in UTF-16 units, as step-rows.ts counts a batch. */
export function stepRowChars(json: StepRowJson): number {
  return json.journal.length + json.events.length + json.span.length;
}

const INSERT_STEP_ROWS = `INSERT INTO ${STEP_ROWS_VIEW} VALUES (?,?,?,?,?,?,?)`;

/** The items of a JSON array, the empty ones left out. */
function array(items: readonly string[]): string {
  return `[${items.filter((item) => item !== "").join(",")}]`;
}

/**
 * Rows (each with its stepRowJson) in one statement, in order: atomic as one statement is, so all
 * of them are written or none. One row is written as insertStepRow writes it.
 */
export function insertStepRows(sql: SqlStorage, rows: readonly { row: StepRow; json: StepRowJson }[]): void {
  if (rows.length === 1) {
    insertStepRow(sql, rows[0]!.row);
    return;
  }
  if (rows.length === 0) return;
  let steps = 0;
  let stopReason: string | null = null;
  for (const { row } of rows) {
    steps += row.steps;
    stopReason = row.stopReason ?? stopReason;
  }
  sql.exec(
    INSERT_STEP_ROWS,
    array(rows.map((entry) => entry.json.journal)),
    array(rows.map((entry) => entry.json.events)),
    array(rows.map((entry) => entry.json.span)),
    steps,
    addUsd(...rows.map((entry) => entry.row.usd)),
    rows.at(-1)!.row.at,
    stopReason,
  );
}
