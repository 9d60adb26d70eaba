// What the A2A door needs of stored agents: find one by name for a caller, start a run of it
// through the one intake, list its runs for a caller, and tell whether a run is one of its runs.
// The stored agents themselves (their object, their cache, the create path of a run of one) are
// src/http/agents' and src/durable/agents'; this file only adapts their functions.
import type { Context } from "hono";
import type { RunView } from "../../api/types";
import type { AppEnv, Creator } from "../app-env";
import { ApiException } from "../errors";

export const AGENT_NOT_FOUND = "Agent not found.";

export type A2aAgent = { name: string; description: string; version: number };

/** Who asks: undefined for the card's unauthenticated read. */
export type AgentAsker = Creator | undefined;

export async function findAgent(_c: Context<AppEnv>, _name: string, _asker: AgentAsker): Promise<A2aAgent | undefined> {
  throw new ApiException(503, "Stored agents are not available yet.");
}

export async function startAgentRun(_c: Context<AppEnv>, _agent: A2aAgent, _text: string): Promise<{ runId: string }> {
  throw new ApiException(503, "Stored agents are not available yet.");
}

export type AgentRunsPage = { runIds: string[]; next?: string };

export async function listAgentRuns(_c: Context<AppEnv>, _agent: A2aAgent, _limit: number, _cursor: string | undefined): Promise<AgentRunsPage> {
  throw new ApiException(503, "Stored agents are not available yet.");
}

export function isRunOf(_view: RunView, _agent: A2aAgent): boolean {
  return false;
}
