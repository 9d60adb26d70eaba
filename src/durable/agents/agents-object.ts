// The deployment's stored agents, in one object (SQLite, like the inbox): it only stores and
// reads. Whether a template may be stored is the edge's to ask the one intake before it calls here;
// who sees an agent is src/api/resources/agent-types.ts's visibleTo, applied here to listings and at the edge to reads.
import { DurableObject } from "cloudflare:workers";
import { AGENT_NOT_FOUND, visibleTo, type AgentVersionRecord, type StoredAgent } from "../../api/resources/agent-types";
import type { AgentLookup, AgentsPage, AgentsQuery, AgentsRpc, VersionsPage, VersionsQuery } from "../../api/rpc/agents-rpc";
import type { Outcome } from "../../api/types";
import { canonicalJson } from "../../lib/text/canonical-json";
import { fail, ok } from "../run/outcome";
import { hasAgents, listAgents, listVersions, markDeleted, migrateAgents, readAgent, readVersion, writeVersion } from "./agents-store";

/** What of a version a change compares: the record as stored. */
const sameRecord = (agent: StoredAgent, record: AgentVersionRecord): boolean => {
  const { name: _name, version: _version, createdAt: _createdAt, agentCreatedAt: _agentCreatedAt, firstVersion: _firstVersion, ...held } = agent;
  return canonicalJson(held) === canonicalJson(record);
};

export class AgentsObject extends DurableObject<Env> implements AgentsRpc {
  /** The clock versions are stamped by (tests may move it). */
  now: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Agents stored by an older release get what it lacked (agents-store.ts); an object that holds none stays empty.
    if (hasAgents(ctx.storage.sql)) ctx.storage.transactionSync(() => migrateAgents(ctx.storage.sql));
  }

  private get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  async createAgent(name: string, record: AgentVersionRecord): Promise<Outcome<StoredAgent>> {
    return this.ctx.storage.transactionSync(() => {
      migrateAgents(this.sql);
      if (readAgent(this.sql, name) !== undefined) return fail(409, `An agent named ${name} exists: change it with PATCH /v1/agents/${name}, or delete it first.`);
      writeVersion(this.sql, name, record, this.stamp());
      return ok(readAgent(this.sql, name)!);
    });
  }

  async updateAgent(name: string, record: AgentVersionRecord): Promise<Outcome<StoredAgent>> {
    return this.ctx.storage.transactionSync(() => {
      const latest = readAgent(this.sql, name);
      if (latest === undefined) return fail(404, AGENT_NOT_FOUND);
      // A change that changes nothing (a retried PATCH) makes no version.
      if (sameRecord(latest, record)) return ok(latest);
      writeVersion(this.sql, name, record, this.stamp());
      return ok(readAgent(this.sql, name)!);
    });
  }

  async deleteAgent(name: string): Promise<Outcome<null>> {
    if (!hasAgents(this.sql)) return fail(404, AGENT_NOT_FOUND);
    return this.ctx.storage.transactionSync(() => (markDeleted(this.sql, name) ? ok(null) : fail(404, AGENT_NOT_FOUND)));
  }

  async lookup(name: string, version?: number): Promise<Outcome<AgentLookup>> {
    const agent = readAgent(this.sql, name);
    if (agent === undefined) return fail(404, AGENT_NOT_FOUND);
    if (version === undefined || version === agent.version) return ok({ agent, version: agent });
    const found = readVersion(this.sql, name, version);
    return found === undefined ? fail(404, `Agent ${name} has no version ${version}.`) : ok({ agent, version: found });
  }

  async list(query: AgentsQuery): Promise<AgentsPage> {
    return listAgents(this.sql, query.reader, query.limit, query.after);
  }

  async versions(name: string, query: VersionsQuery): Promise<Outcome<VersionsPage>> {
    const agent = readAgent(this.sql, name);
    // An agent the reader does not see is no agent, as a read of it is (one answer for every miss).
    if (agent === undefined || !visibleTo(query.reader, agent.subject)) return fail(404, AGENT_NOT_FOUND);
    return ok({ agent, ...listVersions(this.sql, name, query.reader, query.limit, query.before) });
  }
}
