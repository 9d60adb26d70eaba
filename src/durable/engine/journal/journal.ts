// The run's journal in SQLite: step(key, work) returns a stored value, or runs work and writes its
// value, its cost, its events (after those held for it: events/held-events.ts), the run's counters
// and its span in one statement (step-commit.ts) — with the rows of the steps before it that ran
// in the same turn, when the slice buffers them (step-rows.ts).
// One row per step: a write is O(size of that step), never a rewrite of the history. A value too
// large for its row is spilled (spill.ts).
import type { RunEvent } from "../../../api/types";
import type { Step, StepOutput, StoredLoopEvent } from "../../../loop/types";
import { isoNow } from "../../storage/clock";
import { eventSpills, forgetSeqOnFailure, insertStepEvent, rememberSeq, stepEventBody, stepEventTexts } from "../../events/log/event-log";
import { spills, spillText, unspillText } from "../../storage/spill";
import { prefixEnd } from "../../storage/key-range";
import { usd } from "../../../lib/money";
import { EVENTS_PER_STATEMENT, insertStepRow, type StepRow } from "./step-commit";
import type { LoggedEvent } from "../../events/log/event-log";
import type { HeldEvents, Taken } from "../../events/log/held-events";
import type { StepRows } from "./step-rows";

export const JOURNAL_TABLE = `CREATE TABLE IF NOT EXISTS journal (key TEXT PRIMARY KEY, value TEXT NOT NULL, cost REAL NOT NULL)`;

/** Reads every stored step of one key prefix (one segment) at once, so a replay does no per-step query. */
export function loadJournal(sql: SqlStorage, prefix: string): Map<string, unknown> {
  const rows = sql.exec<{ key: string; value: string }>("SELECT key, value FROM journal WHERE key >= ? AND key < ?", prefix, prefixEnd(prefix)).toArray();
  const stored = new Map<string, unknown>();
  for (const row of rows) stored.set(row.key.slice(prefix.length), JSON.parse(unspillText(sql, row.value)));
  return stored;
}

/** The stored values whose keys start with `keyPrefix` (e.g. one model call's takes, "s1/messages/3/"), read back from their spill. */
export function journalValuesUnder(sql: SqlStorage, keyPrefix: string): unknown[] {
  return sql
    .exec<{ value: string }>("SELECT value FROM journal WHERE key >= ? AND key < ?", keyPrefix, prefixEnd(keyPrefix))
    .toArray()
    .map((row) => JSON.parse(unspillText(sql, row.value)) as unknown);
}

/**
 * One page of the journal in key order: up to `limit` entries after `afterKey` (from the first
 * when undefined), values read back from their spill. A reader that pages (an export) holds one
 * page at a time, however long the run.
 */
export function readJournalPage(sql: SqlStorage, afterKey: string | undefined, limit: number): { key: string; value: string; costUsd: number }[] {
  return sql
    .exec<{ key: string; value: string; cost: number }>("SELECT key, value, cost FROM journal WHERE key > ? ORDER BY key LIMIT ?", afterKey ?? "", limit)
    .toArray()
    .map((row) => ({ key: row.key, value: unspillText(sql, row.value), costUsd: row.cost }));
}

/** One stored step's value, parsed (read back from its spill), or undefined when the journal holds no `key`. */
export function journalValue(sql: SqlStorage, key: string): unknown {
  const row = sql.exec<{ value: string }>("SELECT value FROM journal WHERE key = ?", key).toArray()[0];
  return row === undefined ? undefined : (JSON.parse(unspillText(sql, row.value)) as unknown);
}

export type JournalOptions = {
  sql: SqlStorage;
  storage: DurableObjectStorage;
  prefix: string;
  stored: Map<string, unknown>;
  signal: AbortSignal;
  /** Called before a new step's work runs; may throw to end this slice (or the run, at a limit). */
  beforeNewStep: (key: string) => void;
  /** The API event for a stored loop event. */
  toRunEvent: (event: StoredLoopEvent) => RunEvent;
  /** Inside the step's transaction, after its rows: what else the step commits. `startedAt` is when its work began (ms). */
  onStepCommit?: (key: string, output: StepOutput<unknown>, startedAt: number, endedAt: number) => void;
  /** The step's span as its row in the outbox keeps it (span-writer.ts), written by the step's own statement; undefined while the export is off. */
  spanOf?: (key: string, output: StepOutput<unknown>, startedAt: number, endedAt: number) => { key: string; seed: string; nowMs: number } | undefined;
  /**
   * After the commit, or its buffering in `rows`: its events in seq order, to send to clients once
   * it is written (rows.whenWritten), after what it took from `held` (`taken`: sendCommitted);
   * `chars`, the characters it writes (its value, events and span).
   */
  onCommit: (events: LoggedEvent[], chars: number, taken: Taken | undefined) => void;
  /** Events logged since the last commit and held for the next (events/held-events.ts): written first, in the step's statement. */
  held?: Pick<HeldEvents, "take" | "giveBack" | "restore">;
  /** The signal of the step at `key` (the slice's, or one a message may abort: model-calls.ts); `settled` when its work ends. */
  stepSignal?: (key: string) => { signal: AbortSignal; settled: () => void };
  /** Writes of a step's own, in the transaction that stores its value: the writer for the step at `key`, or undefined when it writes nothing. */
  onStore?: (key: string) => ((value: unknown) => void) | undefined;
  /**
   * The slice's buffer of step rows (step-rows.ts): a step written in one statement waits there for
   * the next flush. Without it each step is written at once.
   */
  rows?: StepRows;
};

/**
 * Steps whose work may answer in the same turn: a model call, a tool call, a reply, the loop
 * guards' verdict. Whether it does is known when the call is told (`step-start`, `tool-call`: the
 * engine flushes then if its work may wait). Any other step (a take, a start or wait of an async
 * call, a compaction, a guardrail asked of a model) has the rows before it written before its work.
 */
export function deferrable(key: string): boolean {
  return key.startsWith("model/") || key.startsWith("tool/") || key.startsWith("reply/") || key.startsWith("loop/");
}

export function createJournal(options: JournalOptions): Step {
  const { sql, storage, prefix, stored } = options;
  return async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
    if (stored.has(key)) return stored.get(key) as T;
    options.beforeNewStep(key);
    if (!deferrable(key)) options.rows?.flush();
    const startedAt = Date.now();
    const scoped = options.stepSignal?.(key);
    let output: StepOutput<T>;
    try {
      output = await work(scoped?.signal ?? options.signal);
    } finally {
      scoped?.settled();
    }
    const endedAt = Date.now();
    const text = JSON.stringify(output.value);
    const at = isoNow();
    const taken = options.held?.take();
    const held = taken?.events ?? [];
    const logged = stepEventTexts(sql, [...held.map((event) => event.event), ...output.events.map(options.toRunEvent)], at);
    const dedupeOf = (i: number) => held[i]?.dedupe ?? null;
    const model = output.events.find((event) => event.type === "model");
    const store = options.onStore?.(key);
    const span = options.spanOf?.(key, output, startedAt, endedAt);
    const journalKey = prefix + key;
    const rowOf = (): StepRow => ({
      key: journalKey,
      value: spillText(sql, `journal/${journalKey}`, text),
      cost: output.costUsd,
      usd: usd(output.costUsd),
      steps: model === undefined ? 0 : 1,
      at,
      seq: (logged[0]?.seq ?? 0),
      events: logged.slice(0, EVENTS_PER_STATEMENT).map((event, i) => {
        const body = stepEventBody(sql, event);
        // A text made of a head and a list's end is written in a batch without escaping the end again (step-batch.ts).
        return { body, dedupe: dedupeOf(i), spliced: event.tail !== undefined && body === event.text ? event : undefined };
      }),
      ...(model === undefined ? {} : { stopReason: model.stopReason }),
      ...(span === undefined ? {} : { span }),
    });
    const write = () => {
      insertStepRow(sql, rowOf());
      logged.slice(EVENTS_PER_STATEMENT).forEach((event, i) => insertStepEvent(sql, event, at, dedupeOf(EVENTS_PER_STATEMENT + i)));
      store?.(output.value);
      options.onStepCommit?.(key, output, startedAt, endedAt);
    };
    // One statement is atomic by itself; anything more is one transaction (step-commit.ts).
    const alone = store === undefined && options.onStepCommit === undefined && logged.length <= EVENTS_PER_STATEMENT && !spills(text) && !logged.some(eventSpills);
    // Not written: the held events wait for whatever writes next (the run's failure, at the latest).
    const failed = () => {
      if (taken !== undefined) options.held?.giveBack(taken);
    };
    if (alone && options.rows !== undefined) {
      // Written with the rows of the steps before and after it in this turn (step-rows.ts); should
      // that fail, what was told after it is of steps that would never have run.
      options.rows.add(rowOf(), () => {
        if (taken !== undefined) options.held?.restore(taken);
      });
    } else {
      // The rows before it first: a transaction, or a statement of its own, follows them.
      options.rows?.flush();
      try {
        forgetSeqOnFailure(sql, () => (alone ? write() : storage.transactionSync(write)));
      } catch (error) {
        failed();
        throw error;
      }
    }
    if (logged.length > 0) rememberSeq(sql, logged[logged.length - 1]!.seq);
    // The value a replay would read: JSON round-tripped, so first runs and replays see the same data.
    const value = JSON.parse(text) as T;
    stored.set(key, value);
    options.onCommit(logged, text.length + logged.reduce((sum, event) => sum + event.text.length, 0) + (span?.seed.length ?? 0), taken);
    return value;
  };
}
