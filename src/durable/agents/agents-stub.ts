// The one place where the untyped AGENTS and AGENT_RUNS bindings become the typed RPC contracts of
// src/api/rpc/agents-rpc.ts. The deployment's agents live in one object; each agent name's index of
// runs in one of its own.
import type { AgentRunsRpc, AgentsRpc } from "../../api/rpc/agents-rpc";

export type AgentsStub = DurableObjectStub & AgentsRpc;

/** The one agents object's name. */
export const AGENTS_OBJECT = "agents:deployment";

export function agentsStub(env: Env): AgentsStub {
  return env.AGENTS.get(env.AGENTS.idFromName(AGENTS_OBJECT)) as unknown as AgentsStub;
}

export type AgentRunsStub = DurableObjectStub & AgentRunsRpc;

/** The index of the runs of the agent named `name` (every version, every subject). */
export function agentRunsStub(env: Env, name: string): AgentRunsStub {
  return env.AGENT_RUNS.get(env.AGENT_RUNS.idFromName(`agent-runs:${name}`)) as unknown as AgentRunsStub;
}
