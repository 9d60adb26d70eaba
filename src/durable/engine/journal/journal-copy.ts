// A journal's rows carried to another object as they are (a fork's prefix): packed by SQLite into
// one JSON text and unpacked by SQLite in one statement, so the copy costs no JavaScript object per
// row on either side and one string on the way (a structured clone of one string is a copy of its
// bytes; of thousands of row objects, the largest part of a long run's fork). The values are never
// parsed: each crosses as a JSON string and is stored again byte for byte. A value spilled to chunks
// (spill.ts) crosses as its reference, with its chunk rows beside it.
import type { PackedJournal } from "../../../api/rpc/fork-rpc";
import { insertSpillRows, spillRowsOf } from "../../storage/spill";

export type { PackedJournal };

/** The journal rows under `keys` (full keys, `s<n>/…`), packed; keys the journal does not hold are left out. */
export function packJournalRows(sql: SqlStorage, keys: readonly string[]): PackedJournal {
  const packed = sql
    .exec<{ rows: string; spilled: string }>(
      `SELECT json_group_array(json_array(journal.key, journal.value, journal.cost)) AS rows,
              json_group_array(journal.value) FILTER (WHERE journal.value LIKE '@spill:%') AS spilled
       FROM json_each(?) AS wanted JOIN journal ON journal.key = wanted.value`,
      JSON.stringify(keys),
    )
    .one();
  return { rows: packed.rows, spill: spillRowsOf(sql, JSON.parse(packed.spilled) as string[]) };
}

/** Writes packed rows into this object's journal, inside the caller's transaction. */
export function insertPackedJournal(sql: SqlStorage, packed: PackedJournal): void {
  sql.exec("INSERT INTO journal (key, value, cost) SELECT row.value ->> 0, row.value ->> 1, row.value ->> 2 FROM json_each(?) AS row", packed.rows);
  insertSpillRows(sql, packed.spill);
}
