// A fork's own row: the run it was forked from, the model step its prefix ends with, and what the
// prefix cost its source. Written once, with the run; this module alone holds the table's SQL.
import type { ForkedFrom } from "../../api/types";
import { tableExists } from "../storage/sqlite-tables";

export const FORK_TABLE = `CREATE TABLE IF NOT EXISTS fork (run_id TEXT NOT NULL, step INTEGER NOT NULL, inherited_usd REAL NOT NULL)`;

/**
 * Databases whose fork row was found absent: runs that are not forks, which never become one (the
 * row is written with the run, by insertFork, which forgets the absence). The run's row is read at
 * each view and several times a slice; a look for a row that is not there is a call into SQLite each time.
 */
const notFork = new WeakSet<SqlStorage>();

export function insertFork(sql: SqlStorage, forkedFrom: ForkedFrom, inheritedUsd: number): void {
  notFork.delete(sql);
  sql.exec("INSERT INTO fork (run_id, step, inherited_usd) VALUES (?, ?, ?)", forkedFrom.runId, forkedFrom.step, inheritedUsd);
}

/** A run made here now that is not a fork (createRun, in its transaction): no look for its row. */
export function markNotFork(sql: SqlStorage): void {
  notFork.add(sql);
}

/** The fork's source and prefix cost; undefined for a run that is not a fork. */
export function readFork(sql: SqlStorage): { forkedFrom: ForkedFrom; inheritedUsd: number } | undefined {
  if (notFork.has(sql) || !tableExists(sql, "fork")) return undefined;
  const row = sql.exec<{ run_id: string; step: number; inherited_usd: number }>("SELECT run_id, step, inherited_usd FROM fork LIMIT 1").toArray()[0];
  if (row === undefined) {
    notFork.add(sql);
    return undefined;
  }
  return { forkedFrom: { runId: row.run_id, step: row.step }, inheritedUsd: row.inherited_usd };
}
