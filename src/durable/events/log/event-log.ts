// An event log: gap-free seq from 1, each event stored as the exact JSON text clients get (spilled
// when it is too large for its row). A run's events, a subject's inbox events and an experiment's.
//
// The newest seq is remembered per database while it is known for sure, so the run engine, which
// appends before and with every step, does not ask SQLite for it each time. The object is
// single-threaded; what could make a remembered seq wrong is an append that is rolled back. So an
// append that may be inside someone's transaction (appendEvent, the default) forgets it, and only
// appends that are outside any transaction, or whose transaction forgets it when it fails (the
// journal's, see forgetSeqOnFailure), remember theirs.
import type { RunEvent } from "../../../api/types";
import { eventText, type LogEvent, type LoggedEvent } from "./event-text";
import { spills, spillsFrom, spillText, unspillText } from "../../storage/spill";
import { prefixEnd } from "../../storage/key-range";
import { tableExists, tableKnown } from "../../storage/sqlite-tables";

// seq is the gap-free event counter; dedupe makes an event written before a step idempotent;
// passes, when set, is the id of the list of passes (`pass_list`) that ends the event's text, its
// body then being the text without it (the list's place a closing brace): see eventsAfter.
export const EVENT_TABLE = `CREATE TABLE IF NOT EXISTS event (seq INTEGER PRIMARY KEY, dedupe TEXT UNIQUE, at TEXT NOT NULL, body TEXT NOT NULL, passes INTEGER)`;

/**
 * A run's lists of passes (`tool-call` events' `guardrailsPassed`), each stored once: its id (the
 * text's 53-bit hash: event-text.ts) and the end of an event's text it is (`,"guardrailsPassed":[…]}`).
 * Written by a batch of step rows with the events that carry it (../../engine/journal/step-batch.ts).
 */
export const PASS_LIST_TABLE = `CREATE TABLE IF NOT EXISTS pass_list (id INTEGER PRIMARY KEY, text TEXT NOT NULL)`;

/** The column event.passes, for a run's event table made before it (schema.ts). */
export const EVENT_PASSES_COLUMN = { table: "event", column: "passes", definition: "INTEGER" } as const;

export type { LoggedEvent } from "./event-text";

/** The newest seq of each database's event log, while it is known for sure (see above). */
const remembered = new WeakMap<SqlStorage, number>();

/** Inserts one event; false when its dedupe key was logged before (nothing is written then). */
function insert(sql: SqlStorage, seq: number, at: string, text: string, dedupe: string | null): boolean {
  // A text that spills writes its chunks before its row: a duplicate is found first, so that none are left behind.
  if (dedupe !== null && spills(text) && sql.exec("SELECT 1 FROM event WHERE dedupe = ?", dedupe).toArray().length > 0) return false;
  // A clash on seq would be a bug and fails loudly; a clash on dedupe writes nothing.
  const cursor = sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, ?, ?, ?) ON CONFLICT (dedupe) DO NOTHING", seq, dedupe, at, spillText(sql, `event/${seq}`, text));
  return cursor.rowsWritten > 0;
}

/** `newest`: the newest seq, when the caller logged it in this same synchronous turn (not asked for again). */
function append(sql: SqlStorage, event: LogEvent, at: string, dedupe: string | undefined, newest?: number): LoggedEvent | undefined {
  const logged = eventText((newest ?? newestSeq(sql)) + 1, at, event);
  return insert(sql, logged.seq, at, logged.text, dedupe ?? null) ? logged : undefined;
}

/**
 * Appends one event with the next seq. With a dedupe key, an event already logged under that key
 * is not logged again (events written before a step may be written again when the step reruns).
 * Safe inside any transaction. `newest`: the seq of the event the caller logged last, in this same
 * synchronous turn, if it did (the newest for sure, within the turn, whatever transaction it is in).
 */
export function appendEvent(sql: SqlStorage, event: LogEvent, at: string, dedupe?: string, newest?: number): LoggedEvent | undefined {
  const logged = append(sql, event, at, dedupe, newest);
  // The transaction this may be part of could still roll back.
  if (logged !== undefined) remembered.delete(sql);
  return logged;
}

/** appendEvent for a caller that is outside any transaction: its seq is remembered. */
export function appendEventOutsideTransaction(sql: SqlStorage, event: RunEvent, at: string, dedupe?: string, newest?: number): LoggedEvent | undefined {
  const logged = append(sql, event, at, dedupe, newest);
  if (logged !== undefined) remembered.set(sql, logged.seq);
  return logged;
}

/**
 * A step's events with the seqs they will have (consecutive, after the newest), as the texts
 * clients get: nothing is written here. The journal writes them with the step (../engine/journal/step-commit.ts),
 * in a statement or transaction that must forget the seq when it fails (forgetSeqOnFailure), and
 * then remembers the newest (rememberSeq).
 */
export function stepEventTexts(sql: SqlStorage, events: readonly RunEvent[], at: string): LoggedEvent[] {
  let seq = newestSeq(sql);
  return events.map((event) => eventText(++seq, at, event));
}

/** spills(event.text), a spliced text's start read from its head (spillsFrom: the text is not made flat for it). */
export function eventSpills(event: LoggedEvent): boolean {
  return spillsFrom(event.text, event.head ?? event.text);
}

/** What a step's event row holds: its text, or a reference to its spilled chunks (written now, in the step's transaction). */
export function stepEventBody(sql: SqlStorage, event: LoggedEvent): string {
  return eventSpills(event) ? spillText(sql, `event/${event.seq}`, event.text) : event.text;
}

/** A step's event past those its statement carries, in the step's transaction (with its dedupe key, if it has one). */
export function insertStepEvent(sql: SqlStorage, event: LoggedEvent, at: string, dedupe: string | null = null): void {
  insert(sql, event.seq, at, event.text, dedupe);
}

/**
 * The dedupe keys logged under a prefix (one segment's events written before or between its
 * steps), read at once: what a slice may be told again and must not log twice. A column of the
 * slice's read of its segment (segment-store.ts), bound to loggedKeysBindings(prefix) where it stands.
 */
export const LOGGED_KEYS_COLUMN = "(SELECT json_group_array(dedupe) FROM event WHERE dedupe >= ? AND dedupe < ?)";

export function loggedKeysBindings(prefix: string): [string, string] {
  return [prefix, prefixEnd(prefix)];
}

/** LOGGED_KEYS_COLUMN's value. */
export function loggedKeysOf(column: SqlStorageValue | undefined): Set<string> {
  return new Set((JSON.parse(String(column)) as string[]).map(String));
}

/**
 * The newest seq is known for sure: after a step's events were committed, or as a read outside any
 * transaction just found it (LAST_SEQ_COLUMN, folded into the alarm's and the creation's reads).
 */
export function rememberSeq(sql: SqlStorage, seq: number): void {
  remembered.set(sql, seq);
}

/**
 * Appends a step's events with consecutive seqs, inside the step's transaction, which must forget
 * the seq when it fails (forgetSeqOnFailure).
 */
export function appendStepEvents(sql: SqlStorage, events: readonly RunEvent[], at: string): LoggedEvent[] {
  const logged = stepEventTexts(sql, events, at);
  for (const event of logged) insertStepEvent(sql, event, at);
  if (logged.length > 0) rememberSeq(sql, logged[logged.length - 1]!.seq);
  return logged;
}

/** Runs `work` (a statement or transaction that writes a step's events); when it throws, the remembered seq is forgotten. */
export function forgetSeqOnFailure<T>(sql: SqlStorage, work: () => T): T {
  try {
    return work();
  } catch (error) {
    remembered.delete(sql);
    throw error;
  }
}

/** Forgets the remembered seq (the log was dropped). */
export function forgetSeq(sql: SqlStorage): void {
  remembered.delete(sql);
}

/** lastSeq as a column of another read (the run's row: run-store.ts), one call into SQLite for both. */
export const LAST_SEQ_COLUMN = "(SELECT COALESCE(MAX(seq), 0) FROM event)";

/** The newest event's seq (0 before the first): SQLite reads the largest rowid directly. */
export function lastSeq(sql: SqlStorage): number {
  return Number(sql.exec<{ last: number }>(`SELECT ${LAST_SEQ_COLUMN} AS last`).one().last);
}

/** lastSeq, from memory when it is known there. */
export function newestSeq(sql: SqlStorage): number {
  return remembered.get(sql) ?? lastSeq(sql);
}

/**
 * The read of a log whose events may carry a list stored apart (a run's): the body, its closing
 * brace replaced by the list's text. A row stored with its list (the text whole, or older) is read
 * as it is. An inbox's or an experiment's log has no pass_list and is read as it always was.
 */
const READ_WITH_PASSES = "SELECT seq, CASE WHEN passes IS NULL THEN body ELSE substr(body, 1, length(body) - 1) || (SELECT text FROM pass_list WHERE id = passes) END AS body FROM event WHERE seq > ? ORDER BY seq LIMIT ?";
const READ = "SELECT seq, body FROM event WHERE seq > ? ORDER BY seq LIMIT ?";

/** Logs found to have no pass_list (an inbox's, an experiment's): not asked again. */
const plainLogs = new WeakMap<SqlStorage, true>();

/**
 * Whether the log's database holds pass_list: known once a run's tables were made or migrated
 * (schema.ts remembers them), else asked once. A database found without it is not asked again:
 * only a run's creation or wake makes the table, and that remembers it (tableKnown), which is looked at first.
 */
function holdsPassLists(sql: SqlStorage): boolean {
  if (tableKnown(sql, "pass_list")) return true;
  if (plainLogs.has(sql)) return false;
  if (tableExists(sql, "pass_list")) return true;
  plainLogs.set(sql, true);
  return false;
}

/** Stored events after `after`, in order: all of them, or the first `limit`; each the exact text it was logged as. */
export function eventsAfter(sql: SqlStorage, after: number, limit = -1): LoggedEvent[] {
  return sql
    .exec<{ seq: number; body: string }>(holdsPassLists(sql) ? READ_WITH_PASSES : READ, after, limit)
    .toArray()
    .map((row) => ({ seq: Number(row.seq), text: unspillText(sql, String(row.body)) }));
}
