// A write-behind buffer of step rows (step-commit.ts): the steps a slice runs back to back, whose
// work answers at once, are written together, in one statement, instead of one statement each.
//
// Why a batch is committed exactly when the single rows were. A Durable Object's writes to SQLite
// go into one implicit transaction that is committed when the object's code yields to the runtime
// (an await of real I/O, a timer, the end of the invocation); an outgoing message — a response, a
// fetch, a socket send — made while writes are pending is held until they are on disk (the output
// gate), and nothing else runs in the object while its code does not yield (the input gate). Steps
// that run back to back without yielding (a scripted model, a calculator: their awaits settle in
// the same turn) are therefore committed together today already, one statement each. The buffer
// keeps their rows in memory and writes them, in order, in one statement (step-batch.ts: its
// journal rows, events and spans as JSON texts, the run's counters once) before anything that could yield, observe them or depend on them:
//
// - the work of a step that may wait (journal.ts asks `deferrable` of each key; the engine flushes
//   when a model call or a tool call is told — `step-start`, `tool-call` — and its work may wait:
//   a real provider, a scripted turn with a hold, a delay or a recorded failure, a tool not marked
//   `answersAtOnce`), before that work starts, in the same turn;
// - any other write of the run's events (events/log/emit-event.ts), the held events' own writes,
//   a step that needs a transaction (journal.ts), the database's size (storage-limits.ts), the
//   loop's end (its result, a failure), the slice's end (engine.ts, in a `finally` too);
// - sends to watchers: a committed step's events, and live events told after it, are sent once
//   its row is written (whenWritten), in the order they were told.
//
// So no statement of the slice sees the tables the rows write (journal, event, run, outbox)
// without them, nothing leaves the object before them, and they reach SQLite in the same turn as
// the single statements did, so they are committed in the same transaction. Each step's rows stay
// atomic (one statement is), a crash loses only what the runtime's transaction would have lost
// with single statements, and seq stays gap-free (the seqs are given in order; a failure forgets the
// remembered seq). Should the code yield with rows buffered after all (a work wrongly taken to
// answer at once), a timer of no delay writes them at the first turn after, and a failure there is
// thrown by the next flush: a safety net, not the rule.
//
// A write that fails writes, row by row, the rows before the failing one — what the single
// statements would have written — and throws that row's error; the failing row's `failed` runs
// (the events it took are held again, and those told after it forgotten: journal.ts), and the rows
// after it, of steps that would never have run, are dropped. A row too large to buffer (ROW_CHARS) is written at once, as before.
import { forgetSeq } from "../../events/log/event-log";
import { insertStepRows, stepRowChars, stepRowJson, type StepRowJson } from "./step-batch";
import { insertStepRow, type StepRow } from "./step-commit";

/** A row whose JSON is longer is written at once, alone. */
export const ROW_CHARS = 64 * 1024;
/** A batch is written once its rows' JSON reaches this (UTF-16 units: at most 3 bytes each, so each of its texts stays under SQLite's 2 MB for a value). */
export const BATCH_CHARS = 512 * 1024;

type Entry = { kind: "row"; row: StepRow; json: StepRowJson; failed: () => void } | { kind: "then"; run: () => void };

export class StepRows {
  private queue: Entry[] = [];
  private rows = 0;
  private chars = 0;
  private net: ReturnType<typeof setTimeout> | undefined;
  private netFailure: unknown;

  constructor(private readonly sql: SqlStorage) {}

  /** Rows waiting to be written. */
  get size(): number {
    return this.rows;
  }

  /**
   * Buffers `row`, or writes it now when it is too large to buffer (after the rows before it).
   * `failed` runs when its write fails (the flush then throws its error); what is to happen once
   * it is written waits in whenWritten.
   */
  add(row: StepRow, failed: () => void): void {
    const json = stepRowJson(row);
    const chars = stepRowChars(json);
    const alone = chars > ROW_CHARS;
    if (alone || this.chars + chars > BATCH_CHARS) this.flush();
    this.queue.push({ kind: "row", row, json, failed });
    this.rows++;
    this.chars += chars;
    // Too large to buffer: written now, alone, as a batch of one (flush's failure path included).
    if (alone) this.flush();
    else this.net ??= setTimeout(() => this.netFlush(), 0);
  }

  /** Runs `run` once the rows buffered now are written: at once when none are. */
  whenWritten(run: () => void): void {
    if (this.rows === 0) run();
    else this.queue.push({ kind: "then", run });
  }

  /** Writes the buffered rows in one statement, then runs what waited for them, in order. */
  flush(): void {
    this.stopNet();
    if (this.netFailure !== undefined) {
      const failure = this.netFailure;
      this.netFailure = undefined;
      throw failure;
    }
    if (this.queue.length === 0) return;
    const queue = this.queue;
    this.queue = [];
    this.rows = 0;
    this.chars = 0;
    const rows = queue.filter((entry) => entry.kind === "row");
    let failing: { at: number; error: unknown } | undefined;
    try {
      insertStepRows(this.sql, rows);
    } catch (error) {
      // The statement wrote nothing (a statement is atomic): the rows again, one by one — but for
      // a single row, whose one statement (insertStepRows) is the one that just failed.
      failing = rows.length === 1 ? { at: 0, error } : this.oneByOne(rows);
    }
    let row = 0;
    for (const entry of queue) {
      if (entry.kind === "then") entry.run();
      else if (failing !== undefined && row === failing.at) {
        forgetSeq(this.sql);
        entry.failed();
        throw failing.error;
      } else row++;
    }
  }

  /** After the statement failed: the rows one by one, up to the first that fails (undefined when none does). */
  private oneByOne(rows: readonly { row: StepRow }[]): { at: number; error: unknown } | undefined {
    for (let at = 0; at < rows.length; at++) {
      try {
        insertStepRow(this.sql, rows[at]!.row);
      } catch (error) {
        return { at, error };
      }
    }
    return undefined;
  }

  /** The safety net (see above): rows still buffered when the code yielded. */
  private netFlush(): void {
    this.net = undefined;
    try {
      this.flush();
    } catch (error) {
      this.netFailure = error;
    }
  }

  private stopNet(): void {
    if (this.net === undefined) return;
    clearTimeout(this.net);
    this.net = undefined;
  }
}
