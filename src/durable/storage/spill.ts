// Values too large for their row. A SQLite row of a Durable Object holds at most 2 MB, and a run
// can carry tool answers of a megabyte each: its history, a journal value, an event or the run's
// final output could pass that. A text over INLINE_MAX_BYTES is stored instead as chunks of bytes
// in the `spill` table, in the same transaction as its row, and the row keeps a reference. Reads
// stay synchronous and every write stays transactional; deleting the run deletes the chunks.
//
// The reference is SPILL_MARK + key. No JSON text starts with "@", and a raw text (the run's final
// text) that happens to start with the mark is always spilled, so an inline value is never taken
// for a reference.

/** Texts up to this many UTF-8 bytes stay in their row; a row may hold several such columns. */
export const INLINE_MAX_BYTES = 256 * 1024;
/** One chunk row: well under the 2 MB row limit. */
const CHUNK_BYTES = 1024 * 1024;
const SPILL_MARK = "@spill:";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const SPILL_TABLE = `CREATE TABLE IF NOT EXISTS spill (key TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (key, n))`;

function fitsInline(text: string): boolean {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most texts are decided without encoding them.
  if (text.length * 3 <= INLINE_MAX_BYTES) return true;
  return encoder.encode(text).byteLength <= INLINE_MAX_BYTES;
}

/** True when spillText stores `text` as chunks rather than in its row. */
export function spills(text: string): boolean {
  return text.startsWith(SPILL_MARK) || !fitsInline(text);
}

/**
 * spills(text) for a text known to begin with `start` (a rope's first part), whose start is read
 * instead when it is long enough to hold the mark: reading a rope's first characters makes the
 * whole rope flat, a copy that a spliced event's text (events/log/event-text.ts) is made not to need.
 */
export function spillsFrom(text: string, start: string): boolean {
  return (start.length >= SPILL_MARK.length ? start : text).startsWith(SPILL_MARK) || !fitsInline(text);
}

/**
 * What to store in the row for `text`: the text itself, or a reference to its chunks under `key`.
 * A column that is written more than once passes `replaces` so the chunks of its old value go
 * (rows written once, such as journal steps and events, skip that statement). Call inside the
 * row's transaction.
 */
export function spillText(sql: SqlStorage, key: string, text: string, replaces = false): string {
  if (replaces) sql.exec("DELETE FROM spill WHERE key = ?", key);
  if (!spills(text)) return text;
  const bytes = encoder.encode(text);
  for (let at = 0, n = 0; at < bytes.byteLength || n === 0; at += CHUNK_BYTES, n++) {
    const chunk = bytes.slice(at, at + CHUNK_BYTES);
    sql.exec("INSERT INTO spill (key, n, bytes) VALUES (?, ?, ?)", key, n, chunk.buffer);
  }
  return SPILL_MARK + key;
}

/** The text a row stored with spillText. */
export function unspillText(sql: SqlStorage, stored: string): string {
  if (!stored.startsWith(SPILL_MARK)) return stored;
  const key = stored.slice(SPILL_MARK.length);
  const chunks = sql
    .exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM spill WHERE key = ? ORDER BY n", key)
    .toArray()
    .map((row) => new Uint8Array(row.bytes));
  if (chunks.length === 0) throw new Error(`Spilled value ${key} is missing.`);
  const size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return decoder.decode(bytes);
}

/** A spilled text's chunk rows as they are stored (a fork copies them to its own object). */
export type SpillRow = { key: string; n: number; bytes: ArrayBuffer };

/** The chunk rows behind `references` (stored values that are spill references; others are skipped). */
export function spillRowsOf(sql: SqlStorage, references: readonly string[]): SpillRow[] {
  const keys = references.filter((reference) => reference.startsWith(SPILL_MARK)).map((reference) => reference.slice(SPILL_MARK.length));
  if (keys.length === 0) return [];
  return sql.exec<SpillRow>("SELECT spill.key AS key, n, bytes FROM spill JOIN json_each(?) AS wanted ON spill.key = wanted.value ORDER BY spill.key, n", JSON.stringify(keys)).toArray();
}

/** Writes chunk rows read by spillRowsOf, inside the caller's transaction: the references copied with their rows find them. */
export function insertSpillRows(sql: SqlStorage, rows: readonly SpillRow[]): void {
  for (const row of rows) sql.exec("INSERT INTO spill (key, n, bytes) VALUES (?, ?, ?)", row.key, row.n, row.bytes);
}

/** A nullable JSON column, spilled or not. */
export function parseSpilledJson<T>(sql: SqlStorage, text: SqlStorageValue | undefined): T | undefined {
  return text === null || text === undefined ? undefined : (JSON.parse(unspillText(sql, String(text))) as T);
}
