// What the doors need of stored agents, from the edge (the HTTP routes, A2A, MCP): the agents a
// caller sees, one agent by name, and a run of one (docs/agents.md). Reads go through the Worker's
// cache (agent-cache.ts). A run of an agent is made by startRun (../intake/start-run.ts), the same
// function POST /v1/runs calls, so no door copies the create path.
import { AGENT_NOT_FOUND, versionVisibleTo, type AgentReader, type AgentRef, type StoredAgent } from "../../api/resources/agent-types";
import type { AgentLookup } from "../../api/rpc/agents-rpc";
import type { Settings } from "../../config/settings";
import { agentsStub } from "../../durable/agents/agents-stub";
import { ApiException, invalidRequest } from "../errors";
import { lookupAgent } from "./agent-cache";
import { agentRunBody, type AgentRunFields, type ResolvedAgentRun } from "./agent-run-body";

export type { AgentRunFields, ResolvedAgentRun };

/** One page of the agents `reader` sees, by name (each at its latest version), after the name `after`. */
export async function listAgents(env: Env, reader: AgentReader, page: { limit: number; after?: string }): Promise<{ agents: StoredAgent[]; next?: string }> {
  return agentsStub(env).list({ reader, limit: page.limit, ...(page.after === undefined ? {} : { after: page.after }) });
}

/**
 * Agent `name` (and `version` of it, else its latest) if `reader` sees both, else undefined (unknown,
 * deleted, another subject's, a version it never had or had before a delete, a version of another subject's).
 */
export async function findAgent(env: Env, reader: AgentReader, name: string, version?: number): Promise<AgentLookup | undefined> {
  const answer = await lookupAgent(env, name, version);
  if (!answer.ok || !versionVisibleTo(reader, answer.value.agent, answer.value.version)) return undefined;
  return answer.value;
}

/** findAgent, or the API's 404 (one message for every kind of miss). */
export async function requireAgent(env: Env, reader: AgentReader, name: string, version?: number): Promise<AgentLookup> {
  const found = await findAgent(env, reader, name, version);
  if (found === undefined) throw new ApiException(404, AGENT_NOT_FOUND);
  return found;
}

/** The name and version an AgentRef names. */
export function refParts(ref: AgentRef): { name: string; version?: number } {
  return typeof ref === "string" ? { name: ref } : ref;
}

/** The version `ref` names, for `reader`; a miss is a 400 with its issue at `path` (the body's field that named it). */
export async function agentAt(env: Env, reader: AgentReader, ref: AgentRef, path: string): Promise<AgentLookup["version"]> {
  const { name, version } = refParts(ref);
  const found = await findAgent(env, reader, name, version);
  if (found !== undefined) return found.version;
  const missing = version === undefined ? `No agent named ${name} (or not one this token sees).` : `No version ${version} of an agent named ${name} (or not one this token sees).`;
  throw invalidRequest("Invalid request body.", [{ path: version === undefined || typeof ref === "string" ? path : `${path}.version`, message: missing }]);
}

/**
 * The full run body of a run of agent `ref` with the caller's fields, ready for the one intake
 * (startRun passes it there with the agent's version as its source): a 400 at `agent` for an agent
 * the reader does not see, at `budget.usd` for a budget above the agent's.
 */
export async function resolveAgentRun(env: Env, settings: Settings, reader: AgentReader, ref: AgentRef, fields: AgentRunFields): Promise<ResolvedAgentRun> {
  const version = await agentAt(env, reader, ref, "agent");
  return agentRunBody(version, fields, settings.limits.budgetUsdDefault);
}
