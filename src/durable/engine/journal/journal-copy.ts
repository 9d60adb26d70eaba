// A journal's rows carried to another object as they are (a fork's prefix): packed by SQLite into
// JSON texts and unpacked by SQLite, one statement a page, so the copy costs no JavaScript object
// per row on either side and a few strings on the way (a structured clone of a string is a copy of
// its bytes; of thousands of row objects, the largest part of a long run's fork). The values are
// never parsed: each crosses as a JSON string and is stored again byte for byte. A value spilled to
// chunks (spill.ts) crosses as its reference, with its chunk rows beside it.
//
// Pages: SQLite in a Durable Object takes no string over 2 MB (a result or a parameter: Cloudflare's
// documented limit), so each page holds rows of at most PACK_PAGE_BYTES stored bytes, or one row
// (at most spill.ts's 256 KiB inline). A stored value is JSON text, so in a page each of its bytes
// becomes two at most (a quote or a backslash, escaped again).
import type { PackedJournal } from "../../../api/rpc/fork-rpc";
import { insertSpillRows, spillRowsOf } from "../../storage/spill";

export type { PackedJournal };

/** The stored bytes of the rows one packed page holds at most. */
export const PACK_PAGE_BYTES = 256 * 1024;

/** A row to pack: its key (full, `s<n>/…`) and the bytes of its stored value (`length(CAST(value AS BLOB))`). */
export type RowSize = { key: string; bytes: number };

/** Keys in pages of at most PACK_PAGE_BYTES stored bytes each (a larger row alone). */
function pagesOf(rows: readonly RowSize[]): string[][] {
  const pages: string[][] = [];
  let page: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (page.length > 0 && bytes + row.bytes > PACK_PAGE_BYTES) {
      pages.push(page);
      page = [];
      bytes = 0;
    }
    page.push(row.key);
    bytes += row.bytes;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

/** The journal rows of `rows`, packed; keys the journal does not hold are left out. */
export function packJournalRows(sql: SqlStorage, rows: readonly RowSize[]): PackedJournal {
  const pages: string[] = [];
  const references: string[] = [];
  for (const keys of pagesOf(rows)) {
    const packed = sql
      .exec<{ rows: string; spilled: string }>(
        `SELECT json_group_array(json_array(journal.key, journal.value, journal.cost)) AS rows,
                json_group_array(journal.value) FILTER (WHERE journal.value LIKE '@spill:%') AS spilled
         FROM json_each(?) AS wanted JOIN journal ON journal.key = wanted.value`,
        JSON.stringify(keys),
      )
      .one();
    pages.push(packed.rows);
    references.push(...(JSON.parse(packed.spilled) as string[]));
  }
  return { pages, spill: spillRowsOf(sql, references) };
}

/** Writes packed rows into this object's journal, inside the caller's transaction. */
export function insertPackedJournal(sql: SqlStorage, packed: PackedJournal): void {
  for (const page of packed.pages) sql.exec("INSERT INTO journal (key, value, cost) SELECT row.value ->> 0, row.value ->> 1, row.value ->> 2 FROM json_each(?) AS row", page);
  insertSpillRows(sql, packed.spill);
}
