// The one place where the untyped AGENTS binding becomes the typed RPC contract of
// src/api/rpc/agents-rpc.ts. The deployment's agents live in one object.
import type { AgentsRpc } from "../../api/rpc/agents-rpc";

export type AgentsStub = DurableObjectStub & AgentsRpc;

/** The one agents object's name. */
export const AGENTS_OBJECT = "agents:deployment";

export function agentsStub(env: Env): AgentsStub {
  return env.AGENTS.get(env.AGENTS.idFromName(AGENTS_OBJECT)) as unknown as AgentsStub;
}
