// The creations of child runs not yet answered by the child's object (docs/children.md): one row per
// agent call by its start's step key with the segment, holding the admitted run the parent asks its
// child's object to create. Written with the call's `child_run` row, before the start is journaled,
// and deleted in the transaction that records the child made (or not made): a row still here after a
// crash is a creation that may not have reached the child, which the call's wait asks for again (the
// child's id and request are the same, so its object answers the run it made). This module alone
// reads and writes the table, which is made on first use.
import type { NewRun } from "../../api/types";
import { tableExists } from "../storage/sqlite-tables";

export const CHILD_CREATE_TABLE = `CREATE TABLE IF NOT EXISTS child_create (key TEXT PRIMARY KEY, run TEXT NOT NULL)`;

export function savePendingCreate(sql: SqlStorage, key: string, run: NewRun): void {
  sql.exec(CHILD_CREATE_TABLE);
  sql.exec("INSERT INTO child_create (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, JSON.stringify(run));
}

/** Every creation not yet answered, by its call's key. */
export function pendingCreates(sql: SqlStorage): Map<string, NewRun> {
  if (!tableExists(sql, "child_create")) return new Map();
  return new Map(sql.exec<{ key: string; run: string }>("SELECT key, run FROM child_create").toArray().map((row) => [row.key, JSON.parse(row.run) as NewRun]));
}

export function dropPendingCreate(sql: SqlStorage, key: string): void {
  if (tableExists(sql, "child_create")) sql.exec("DELETE FROM child_create WHERE key = ?", key);
}
