// One page of a run index (the inbox's `run_index`, a schedule's `schedule_run`, a stored agent's
// `agent_run`: each holds a run's summary JSON with its status, creation time and a deleted flag),
// newest first by creation time then id, after `query.after` when given. Keyset pagination: a run
// created later lands before the cursor and never shifts a page.
import type { ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import type { RunSummary } from "../../api/types";

/** The run indexes: a subject's (its inbox), a schedule's, a stored agent's. */
export type RunIndexTable = "run_index" | "schedule_run" | "agent_run";

export function runIndexPage(sql: SqlStorage, table: RunIndexTable, query: ListQuery): ListAnswer {
  const where = ["deleted = 0"];
  const values: SqlStorageValue[] = [];
  if (query.status !== undefined) {
    where.push("status = ?");
    values.push(query.status);
  }
  // The runs of one stored agent, or of one tag: filters over the summaries of the subject's (or schedule's) own
  // index, not an index of its own; a page reads on until it holds its runs or the index ends.
  if (query.agent !== undefined) {
    where.push("json_extract(summary, '$.agent.name') = ?");
    values.push(query.agent);
  }
  if (query.tag !== undefined) {
    where.push("EXISTS (SELECT 1 FROM json_each(summary, '$.tags') WHERE value = ?)");
    values.push(query.tag);
  }
  // ISO times of one format (toISOString) compare as text.
  if (query.from !== undefined) {
    where.push("created_at >= ?");
    values.push(query.from);
  }
  if (query.to !== undefined) {
    where.push("created_at < ?");
    values.push(query.to);
  }
  if (query.after !== undefined) {
    where.push("(created_at < ? OR (created_at = ? AND run_id < ?))");
    values.push(query.after.createdAt, query.after.createdAt, query.after.id);
  }
  const rows = sql
    .exec<{ summary: string }>(`SELECT summary FROM ${table} WHERE ${where.join(" AND ")} ORDER BY created_at DESC, run_id DESC LIMIT ?`, ...values, query.limit + 1)
    .toArray();
  const runs = rows.slice(0, query.limit).map((row) => JSON.parse(row.summary) as RunSummary);
  const last = runs.at(-1);
  return rows.length > query.limit && last !== undefined ? { runs, next: { createdAt: last.createdAt, id: last.id } } : { runs };
}
