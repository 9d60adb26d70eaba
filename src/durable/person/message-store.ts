// The person's messages to a running run (POST /v1/runs/:id/messages with the run running): each is
// stored here first, in order, then taken into the history once, by the loop's take step (whose
// journal transaction marks it taken: engine/incoming/incoming.ts) or by the next segment's start
// (transitions.ts). A message not yet taken waits here. A continue's own message is kept here too,
// taken at its segment's start (mode `continue`), so every message of the person the run took has
// its id here, once: the caller's own (a chat client's) or one the run made. This module alone
// reads and writes the table.
import type { Content, IncomingMessage, MessageMode } from "../../loop/types";
import { RUN_MESSAGE_ID_PREFIX } from "../../api/rules/message-ids";

export const USER_MESSAGE_TABLE = `CREATE TABLE IF NOT EXISTS user_message (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, mode TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL, taken TEXT)`;

type Row = { id: string; mode: string; content: string };

/**
 * The databases known to hold no message waiting, so that the loop's check before each model step
 * does not ask SQLite while none has come. Only storeMessage adds one (it forgets the mark); a take
 * only removes them, and markTaken forgets the mark too, in case its transaction rolls back. The
 * object is single-threaded and the check runs between steps, never inside a transaction.
 */
const knownEmpty = new WeakSet<SqlStorage>();

/** Stores a message to take; `at`: when it came. */
export function storeMessage(sql: SqlStorage, message: IncomingMessage, at: string): void {
  knownEmpty.delete(sql);
  sql.exec("INSERT INTO user_message (id, mode, content, at) VALUES (?, ?, ?, ?)", message.id, message.mode, JSON.stringify(message.content), at);
}

/** The messages not yet taken, oldest first. */
export function waitingMessages(sql: SqlStorage): IncomingMessage[] {
  return sql
    .exec<Row>("SELECT id, mode, content FROM user_message WHERE taken IS NULL ORDER BY seq")
    .toArray()
    .map((row) => ({ id: row.id, mode: row.mode as MessageMode, content: JSON.parse(row.content) as Content }));
}

/** How many messages wait to be taken (the run view's queuedMessages), as a column of the run's read (run-store.ts). */
export const WAITING_COUNT_COLUMN = "(SELECT COUNT(*) FROM user_message WHERE taken IS NULL)";

/** How many messages wait to be taken, and the bytes of their stored content. */
export function waitingMessageStats(sql: SqlStorage): { count: number; bytes: number } {
  const row = sql.exec<{ n: number; bytes: number | null }>("SELECT COUNT(*) AS n, SUM(LENGTH(CAST(content AS BLOB))) AS bytes FROM user_message WHERE taken IS NULL").one();
  return { count: Number(row.n), bytes: Number(row.bytes ?? 0) };
}

/** Whether a message waits to be taken (read before each model step: from memory while none has come). */
export function hasWaitingMessages(sql: SqlStorage): boolean {
  if (knownEmpty.has(sql)) return false;
  return knowWaitingOutsideTransaction(sql, sql.exec<{ waiting: number }>(`SELECT ${ANY_WAITING_COLUMN} AS waiting`).one().waiting);
}

/** hasWaitingMessages' question as a column of another read (the alarm's first: run-store.ts). */
export const ANY_WAITING_COLUMN = "(SELECT EXISTS (SELECT 1 FROM user_message WHERE taken IS NULL))";

/** ANY_WAITING_COLUMN's value as a read outside any transaction found it: none waiting is remembered, as hasWaitingMessages remembers it. */
export function knowWaitingOutsideTransaction(sql: SqlStorage, column: SqlStorageValue | undefined): boolean {
  const waiting = Number(column) === 1;
  if (!waiting) knownEmpty.add(sql);
  return waiting;
}

/** Marks messages taken, at `where` (the take's journal key, or the segment that began with them); inside the caller's transaction. */
export function markTaken(sql: SqlStorage, ids: readonly string[], where: string): void {
  knownEmpty.delete(sql);
  for (const id of ids) sql.exec("UPDATE user_message SET taken = ? WHERE id = ? AND taken IS NULL", where, id);
}

/** A continue's own message: its id, stored taken at the start of the segment it began (`s<n>/start`); its content is that segment's, not kept twice. */
export function storeContinueMessage(sql: SqlStorage, id: string, segment: number, at: string): void {
  sql.exec("INSERT INTO user_message (id, mode, content, at, taken) VALUES (?, 'continue', 'null', ?, ?)", id, at, `s${segment}/start`);
}

/** The ids of the continues' own messages, oldest first. */
export function continueMessageIds(sql: SqlStorage): string[] {
  return sql
    .exec<{ id: string }>("SELECT id FROM user_message WHERE mode = 'continue' ORDER BY seq")
    .toArray()
    .map((row) => String(row.id));
}

/** Whether the run was sent a message with this id before (ids are the caller's own, and must not repeat). */
export function messageIdUsed(sql: SqlStorage, id: string): boolean {
  return sql.exec("SELECT 1 FROM user_message WHERE id = ? LIMIT 1", id).toArray().length > 0;
}

/** A message's id when the caller gave none, told in its `user-message` event. */
export function newMessageId(): string {
  return `${RUN_MESSAGE_ID_PREFIX}${crypto.randomUUID().replace(/-/g, "")}`;
}
