// The agents in SQLite: `agent` (one row per name: its latest version, the first version of the
// agent as it is now, whether it was deleted, the subject that sees it) and `agent_version` (every
// version of the agent as it is now, never changed). A create or a change is one transaction of two
// statements (the caller's transactionSync), so a crash leaves either the old agent or the new
// version with its pointer, never one without the other; a delete is one transaction too (the mark
// and its versions gone). A deleted name keeps its row, so a name made again goes on from the last
// number and {name, version} never names two templates.
import type { AgentReader, AgentVersion, AgentVersionRecord, StoredAgent } from "../../api/resources/agent-types";
import { tableExists } from "../storage/sqlite-tables";

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS agent (
     name TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     subject TEXT,
     deleted INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL,
     first_version INTEGER NOT NULL DEFAULT 1
   )`,
  `CREATE TABLE IF NOT EXISTS agent_version (
     name TEXT NOT NULL,
     version INTEGER NOT NULL,
     record TEXT NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (name, version)
   )`,
];

/**
 * Inside a transaction. A table made before `first_version` kept a deleted agent's versions, and a
 * name made again read them as its own (GET …/versions/1 answered the old agent): the first version
 * of each agent as it is now is the first made since its name was (its `created_at`, stamped by
 * the same clock as that version), and every version before it, and every version of a deleted
 * agent, goes. Once: the column is the mark that it was done.
 */
function dropVersionsBeforeDeletes(sql: SqlStorage): void {
  if (sql.exec("SELECT * FROM agent LIMIT 0").columnNames.includes("first_version")) return;
  sql.exec("ALTER TABLE agent ADD COLUMN first_version INTEGER NOT NULL DEFAULT 1");
  sql.exec(
    `UPDATE agent SET first_version = COALESCE(
       (SELECT MIN(v.version) FROM agent_version v WHERE v.name = agent.name AND v.created_at >= agent.created_at),
       version + 1)`,
  );
  sql.exec(
    `DELETE FROM agent_version WHERE EXISTS (
       SELECT 1 FROM agent a WHERE a.name = agent_version.name AND (a.deleted = 1 OR agent_version.version < a.first_version))`,
  );
}

/** Inside a transaction: the tables, and what a table made by an older release lacks. */
export function migrateAgents(sql: SqlStorage): void {
  for (const statement of STATEMENTS) sql.exec(statement);
  dropVersionsBeforeDeletes(sql);
}

/** True once an agent was stored; reading an object that never held one leaves no storage behind. */
export function hasAgents(sql: SqlStorage): boolean {
  return tableExists(sql, "agent");
}

type AgentRow = { name: string; version: number; subject: string | null; deleted: number; created_at: string; first_version: number };

function agentRow(sql: SqlStorage, name: string): AgentRow | undefined {
  return sql.exec<AgentRow>("SELECT name, version, subject, deleted, created_at, first_version FROM agent WHERE name = ?", name).toArray()[0];
}

/** One version of the agent as it is now (a deleted agent's versions are gone), or undefined. */
export function readVersion(sql: SqlStorage, name: string, version: number): AgentVersion | undefined {
  const row = sql.exec<{ record: string; created_at: string }>("SELECT record, created_at FROM agent_version WHERE name = ? AND version = ?", name, version).toArray()[0];
  if (row === undefined) return undefined;
  return { ...(JSON.parse(row.record) as AgentVersionRecord), name, version, createdAt: row.created_at };
}

/** The agent's latest version, unless there is no such agent or it was deleted. */
export function readAgent(sql: SqlStorage, name: string): StoredAgent | undefined {
  if (!hasAgents(sql)) return undefined;
  const row = agentRow(sql, name);
  if (row === undefined || Number(row.deleted) === 1) return undefined;
  const latest = readVersion(sql, name, Number(row.version));
  return latest === undefined ? undefined : { ...latest, agentCreatedAt: row.created_at, firstVersion: Number(row.first_version) };
}

/** Whether the name is taken by an agent not deleted. */
export function agentExists(sql: SqlStorage, name: string): boolean {
  return readAgent(sql, name) !== undefined;
}

/**
 * Inside a transaction: the agent's next version (1 for a new name; one past the last for a
 * deleted name made again, so {name, version} never means two templates), and the pointer to it.
 */
export function writeVersion(sql: SqlStorage, name: string, record: AgentVersionRecord, now: string): number {
  const row = agentRow(sql, name);
  const version = row === undefined ? 1 : Number(row.version) + 1;
  sql.exec("INSERT INTO agent_version (name, version, record, created_at) VALUES (?, ?, ?, ?)", name, version, JSON.stringify(record), now);
  // A deleted name made again is a new agent: its creation time is now, its first version this one.
  const fresh = row === undefined || Number(row.deleted) === 1;
  sql.exec(
    `INSERT INTO agent (name, version, subject, deleted, created_at, first_version) VALUES (?, ?, ?, 0, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, subject = excluded.subject, deleted = 0, created_at = excluded.created_at, first_version = excluded.first_version`,
    name, version, record.subject ?? null, fresh ? now : row.created_at, fresh ? version : Number(row.first_version),
  );
  return version;
}

/**
 * Inside a transaction: marks the agent deleted and deletes its versions (its row stays, with its
 * last number, so a name made again goes on after it); false when there was none.
 */
export function markDeleted(sql: SqlStorage, name: string): boolean {
  if (!agentExists(sql, name)) return false;
  sql.exec("UPDATE agent SET deleted = 1 WHERE name = ?", name);
  sql.exec("DELETE FROM agent_version WHERE name = ?", name);
  return true;
}

/** One page of the agents `reader` sees, by name, after `after`. */
export function listAgents(sql: SqlStorage, reader: AgentReader, limit: number, after: string | undefined): { agents: StoredAgent[]; next?: string } {
  if (!hasAgents(sql)) return { agents: [] };
  const where = ["deleted = 0"];
  const values: SqlStorageValue[] = [];
  if (reader.kind === "user") {
    where.push("(subject IS NULL OR subject = ?)");
    values.push(reader.subject);
  }
  if (after !== undefined) {
    where.push("name > ?");
    values.push(after);
  }
  const rows = sql.exec<{ name: string }>(`SELECT name FROM agent WHERE ${where.join(" AND ")} ORDER BY name LIMIT ?`, ...values, limit + 1).toArray();
  const agents = rows.slice(0, limit).flatMap((row) => readAgent(sql, row.name) ?? []);
  const last = agents.at(-1);
  return rows.length > limit && last !== undefined ? { agents, next: last.name } : { agents };
}
