// A stored agent's index of its runs (`agent_run`, a run index of src/durable/storage/run-index.ts):
// one row per run made from any version of the agent, whatever its subject, holding the run's
// summary as of its newest status change, for the deployment token's GET /v1/runs?agent= without a
// subject. The runs' outboxes deliver every change at least once (the `agent` channel,
// src/durable/outbox); a change is applied only when newer than the row, and the index is trimmed
// with the runs' retention.
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import { applyIndexChanges, listIndex, runIndexTables, trimIndex } from "../storage/run-index";
import { tableExists } from "../storage/sqlite-tables";

const TABLE = "agent_run";

/** Inside a transaction: the table, made once. */
function ensureTable(sql: SqlStorage): void {
  for (const statement of runIndexTables(TABLE)) sql.exec(statement);
}

/** Inside a transaction: applies the changes newer than the index holds and trims what outlived the retention (`cutoff`, ms); how many were applied. */
export function applyAgentRunChanges(sql: SqlStorage, changes: readonly InboxChange[], now: number, cutoff: number): number {
  ensureTable(sql);
  const { applied } = applyIndexChanges(sql, TABLE, changes, now);
  trimIndex(sql, TABLE, cutoff);
  return applied;
}

/** One page, newest first; an index no run reached yet is empty (and reading it stores nothing). */
export function listAgentRuns(sql: SqlStorage, query: ListQuery): ListAnswer {
  return tableExists(sql, TABLE) ? listIndex(sql, TABLE, query) : { runs: [] };
}
