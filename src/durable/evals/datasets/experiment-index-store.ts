// The deployment's list of experiments (`experiment_entry`, in the datasets object): each
// experiment's id and creation time, newest first. An entry is written before its experiment's
// object is made, so a crash between the two leaves an entry a listing skips (and drops), never an
// experiment no listing shows. This module alone holds the table's SQL.
import type { ExperimentEntry } from "../../../api/rpc/evals-rpc";
import type { ListPosition } from "../../../api/rpc/inbox-rpc";
import { tableExists } from "../../storage/sqlite-tables";

const TABLE = `CREATE TABLE IF NOT EXISTS experiment_entry (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)`;

export function addEntry(sql: SqlStorage, entry: ExperimentEntry): void {
  sql.exec(TABLE);
  sql.exec("INSERT OR IGNORE INTO experiment_entry (id, created_at) VALUES (?, ?)", entry.id, entry.createdAt);
}

export function dropEntry(sql: SqlStorage, id: string): void {
  if (tableExists(sql, "experiment_entry")) sql.exec("DELETE FROM experiment_entry WHERE id = ?", id);
}

export function listEntries(sql: SqlStorage, limit: number, after?: ListPosition): { entries: ExperimentEntry[]; next?: ListPosition } {
  if (!tableExists(sql, "experiment_entry")) return { entries: [] };
  const rows = (
    after === undefined
      ? sql.exec<{ id: string; created_at: string }>("SELECT id, created_at FROM experiment_entry ORDER BY created_at DESC, id DESC LIMIT ?", limit + 1)
      : sql.exec<{ id: string; created_at: string }>(
          "SELECT id, created_at FROM experiment_entry WHERE created_at < ? OR (created_at = ? AND id < ?) ORDER BY created_at DESC, id DESC LIMIT ?",
          after.createdAt, after.createdAt, after.id, limit + 1,
        )
  ).toArray();
  const entries = rows.slice(0, limit).map((row) => ({ id: row.id, createdAt: row.created_at }));
  const last = entries.at(-1);
  return rows.length > limit && last !== undefined ? { entries, next: { createdAt: last.createdAt, id: last.id } } : { entries };
}
