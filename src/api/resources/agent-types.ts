// Stored agents (docs/agents.md): a named, versioned run template that many callers use. Shared by
// the edge, the agents object and clients. A version is immutable once made; each change makes the
// next integer version.
import type { AgentOfRun, ProviderName, RunTemplate } from "../types";

export type { AgentOfRun };

/** An agent's name: 1–64 of [a-z0-9-]. */
export const AGENT_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;

/** Which agent a run, a schedule or an agent tool names: its latest version, or one version. */
export type AgentRef = string | { name: string; version?: number };

/** What one version holds: what its creator gave, and the provider and model the intake resolved it to. */
export type AgentVersionRecord = {
  description: string;
  run: RunTemplate;
  inputSchema?: Record<string, unknown>;
  /** Only user tokens of this subject see and call the agent; without it, every user token of the deployment does. */
  subject?: string;
  provider: ProviderName;
  model: string;
};

/** One version as the agents object answers it. */
export type AgentVersion = AgentVersionRecord & { name: string; version: number; createdAt: string };

/**
 * The agent as a whole: its latest version, with the time the name was made and the first version
 * of the agent as it is now (a name deleted and made again goes on from its last number; the
 * versions before the delete are gone).
 */
export type StoredAgent = AgentVersion & { agentCreatedAt: string; firstVersion: number };

/**
 * An agent as the API shows it. The deployment token sees the whole version, its template through
 * the one redaction (no MCP header values, no credential in a URL); a user token sees what a caller
 * needs, without `run`, `provider` and `model` (docs/agents.md).
 */
export type AgentView = Omit<AgentVersionRecord, "run" | "provider" | "model"> &
  Partial<Pick<AgentVersionRecord, "run" | "provider" | "model">> & {
    name: string;
    version: number;
    /** When the name was made (the agent's), and when this version was. */
    createdAt: string;
    versionCreatedAt: string;
  };

/** Who reads agents: the deployment token sees every agent; a user token those without a subject and its own subject's. */
export type AgentReader = { kind: "deployment" } | { kind: "user"; subject: string };

/** Whether `reader` may see a version that carries `subject`. */
export function visibleTo(reader: AgentReader, subject: string | undefined): boolean {
  return reader.kind === "deployment" || subject === undefined || subject === reader.subject;
}

/**
 * Whether `reader` may see (and run) `version` of `agent`: the agent as a whole (its latest version's
 * subject) and that version (its own subject), so a version made for one subject is never shown or
 * run for another because a later version was shared.
 */
export function versionVisibleTo(reader: AgentReader, agent: Pick<AgentVersion, "subject">, version: Pick<AgentVersion, "subject">): boolean {
  return visibleTo(reader, agent.subject) && visibleTo(reader, version.subject);
}

/** The one answer to an unknown agent, a deleted one, and one a user token does not see: names leak nothing. */
export const AGENT_NOT_FOUND = "Agent not found.";
