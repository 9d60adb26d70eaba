// The runs of one tree (a top-level run and all its descendants), counted by the tree's root in its
// `tree_run` table: one row per descendant, keyed by the child's id, so that MAX_TREE_RUNS holds
// however deep and wide the tree grows. Every start of a child, at any depth, asks the root for a
// place before it writes its own row (child-deps.ts). The child's id is derived from its parent and
// the call, so a start made again after a crash (after the root counted it, before the parent wrote
// its row) asks for the same id and is counted once. A place is never given back: the cap is on the
// runs a tree ever held, as MAX_CHILDREN is on the children a run ever started. This module alone
// reads and writes the table.

export const TREE_RUN_TABLE = `CREATE TABLE IF NOT EXISTS tree_run (run_id TEXT PRIMARY KEY)`;

/**
 * A place in the tree for `runId`: true when it has one (now, or from an earlier ask), false when
 * the tree already holds `maxTreeRuns` runs, the root included.
 */
export function reserveTreePlace(sql: SqlStorage, runId: string, maxTreeRuns: number): boolean {
  sql.exec(TREE_RUN_TABLE);
  if (sql.exec("SELECT 1 FROM tree_run WHERE run_id = ?", runId).toArray().length > 0) return true;
  const held = 1 + Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tree_run").one().n);
  if (held >= maxTreeRuns) return false;
  sql.exec("INSERT INTO tree_run (run_id) VALUES (?)", runId);
  return true;
}
