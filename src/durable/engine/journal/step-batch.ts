// Several steps' rows (step-rows.ts buffers them) in one statement whose work is set-based: one
// INSERT of one row into the view `step_rows_v2`, whose INSTEAD OF trigger writes all the journal
// rows from one JSON array, all the events from another, the run's counters once, and all the spans
// from a third. The single step's view (step-commit.ts) runs its trigger once per row: ten
// statements a row (its journal row, eight event slots tested whether used or not, the run's row,
// its span); here a batch of any size is four, and each JSON text is read once.
//
// It stores what one statement a row stores, byte for byte (test/durable/step-rows.test.ts), but
// for a `tool-call` event's list of passes (event-text.ts), which a batch stores once a run in
// `pass_list` and the event's row names (its body the text without it: the read puts it back,
// event-log.ts), so that three data guardrails on every call do not write the same ~200 characters
// with each (BENCHMARKS.md, issue 50):
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
import type { LoggedEvent, PassesTail } from "../../events/log/event-text";
import { insertStepRow, RUN_COUNTERS, type StepRow } from "./step-commit";

export const STEP_ROWS_VIEW = "step_rows_v2";
/** The view as an older release made it (no lists of passes), dropped when the object wakes (schema.ts). */
export const OLDER_STEP_ROWS_VIEW = "step_rows_v1";

/**
 * Made after every table (schema.ts), beside the single step's view. The batch's lists of passes
 * (`lists`: [id, text] items) are stored first, each once a run (a list stored before under its id
 * is kept); one stored under the same id with another text — a hash clash — aborts the statement,
 * and step-rows.ts then writes the rows one by one, each event's text whole. An event item's fifth
 * value is the id of the list that ends its text, its body then the text without it (event-log.ts).
 */
export const STEP_ROWS_STATEMENTS = [
  `CREATE VIEW IF NOT EXISTS ${STEP_ROWS_VIEW} AS SELECT NULL AS journal, NULL AS events, NULL AS spans, NULL AS steps, NULL AS usd, NULL AS at, NULL AS stop_reason, NULL AS lists`,
  `CREATE TRIGGER IF NOT EXISTS ${STEP_ROWS_VIEW}_insert INSTEAD OF INSERT ON ${STEP_ROWS_VIEW} BEGIN
     INSERT OR IGNORE INTO pass_list (id, text) SELECT value->>0, value->>1 FROM json_each(NEW.lists);
     SELECT RAISE(ABORT, 'pass_list: another list under this id') FROM json_each(NEW.lists) AS list JOIN pass_list ON pass_list.id = list.value->>0 WHERE pass_list.text <> list.value->>1;
     INSERT INTO journal (key, value, cost) SELECT value->>0, value->>1, value->>2 FROM json_each(NEW.journal);
     INSERT INTO event (seq, dedupe, at, body, passes) SELECT value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(NEW.events);
     ${RUN_COUNTERS}
     INSERT INTO outbox (channel, event_id, type, version, body, created_at, next_at) SELECT 'otel', value->>0, 'step', 0, value->>1, value->>2, value->>2 FROM json_each(NEW.spans);
   END`,
];

/**
 * A buffered row's parts as the batch statement reads them, made once, when it is buffered: its
 * journal row, its events and its span, each a JSON array's items (`events` and `span` may be
 * empty), and the lists of passes its events end with (stored apart: `lists`, undefined when none).
 */
export type StepRowJson = { journal: string; events: string; span: string; lists?: PassesTail[] };

/**
 * An event's item, `JSON.stringify([seq, dedupe, at, body])`; when `body` is a head and a list's
 * end (event-text.ts, `spliced`), `[seq, dedupe, at, head + "}", id]`: the text without its list,
 * which the batch stores once under `id` (STEP_ROWS_STATEMENTS). A spilled body is never spliced.
 */
export function eventJson(seq: number, dedupe: string | null, at: string, body: string, spliced?: LoggedEvent): string {
  return itemOf(seq, dedupe, at, body, spliced, listApart(body, spliced));
}

/** eventJson with the list apart already found (`tail`: listApart's). */
function itemOf(seq: number, dedupe: string | null, at: string, body: string, spliced: LoggedEvent | undefined, tail: PassesTail | undefined): string {
  if (tail === undefined) return JSON.stringify([seq, dedupe, at, body]);
  return JSON.stringify([seq, dedupe, at, spliced!.head + "}", tail.id]);
}

/** The list of passes an event's row is stored without: its text's end, when `body` is that text (not a spilled one's reference) made of a head and the list. */
function listApart(body: string, spliced: LoggedEvent | undefined): PassesTail | undefined {
  return spliced?.head !== undefined && spliced.text === body ? spliced.tail : undefined;
}

/** A row's parts as JSON (see StepRowJson). */
export function stepRowJson(row: StepRow): StepRowJson {
  let lists: PassesTail[] | undefined;
  const events: string[] = [];
  for (let i = 0; i < row.events.length; i++) {
    const event = row.events[i]!;
    // The list apart found once, for the item and for the row's lists.
    const tail = listApart(event.body, event.spliced);
    events.push(itemOf(row.seq + i, event.dedupe, row.at, event.body, event.spliced, tail));
    if (tail !== undefined && lists?.includes(tail) !== true) (lists ??= []).push(tail);
  }
  const json: StepRowJson = {
    journal: JSON.stringify([row.key, row.value, row.cost]),
    events: events.join(","),
    span: row.span === undefined ? "" : JSON.stringify([row.span.key, row.span.seed, row.span.nowMs]),
  };
  if (lists !== undefined) json.lists = lists;
  return json;
}

/**
 * What a list's item in the batch's `lists` adds to its characters (listsOf): `[`, its id (at most
 * 16 digits: under 2^53), `,"`, `"]` and the comma between items: 22 at most, 20 counted. It only
 * sizes batches, and a list is counted with every row that carries it, so a batch is counted long.
 */
const LIST_ITEM_CHARS = 20;

/** Its length in UTF-16 units, as step-rows.ts counts a batch (a list of passes counted with each row that carries it: at most that). */
export function stepRowChars(json: StepRowJson): number {
  let chars = json.journal.length + json.events.length + json.span.length;
  for (const list of json.lists ?? []) chars += list.json.length + LIST_ITEM_CHARS;
  return chars;
}

/** The batch's lists of passes, each once: `[id, text]` items of a JSON array. */
function listsOf(rows: readonly { json: StepRowJson }[]): string {
  const seen: PassesTail[] = [];
  for (const { json } of rows) for (const list of json.lists ?? []) if (!seen.includes(list)) seen.push(list);
  return `[${seen.map((list) => `[${list.id},"${list.json}"]`).join(",")}]`;
}

const INSERT_STEP_ROWS = `INSERT INTO ${STEP_ROWS_VIEW} VALUES (?,?,?,?,?,?,?,?)`;

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
    listsOf(rows),
  );
}
