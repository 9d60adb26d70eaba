// A run's whole journal read straight from its table, apart from the code under test (the export
// pages it, a fork packs it): what those readers are checked against.
import { unspillText } from "../../src/durable/storage/spill";

/** Every entry of the journal, values read back from their spill, ordered by key. */
export function readJournalEntries(sql: SqlStorage): { key: string; value: string; costUsd: number }[] {
  return sql
    .exec<{ key: string; value: string; cost: number }>("SELECT key, value, cost FROM journal ORDER BY key")
    .toArray()
    .map((row) => ({ key: row.key, value: unspillText(sql, row.value), costUsd: row.cost }));
}
