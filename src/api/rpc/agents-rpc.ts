// The calls made on the agents object (Durable Object RPC) by the HTTP edge: create, change and
// delete an agent, read its latest version or one version, list the agents a reader sees; and on an
// agent's index of its runs: by runs of the agent, which report their changes, and by the edge.
import type { AgentReader, AgentVersion, AgentVersionRecord, StoredAgent } from "../resources/agent-types";
import type { Outcome } from "../types";
import type { InboxChange, ListAnswer, ListQuery } from "./inbox-rpc";

/** One page of agents, by name; `after` is the last name of the page before. */
export type AgentsQuery = { reader: AgentReader; limit: number; after?: string };
export type AgentsPage = { agents: StoredAgent[]; next?: string };

/** One page of an agent's versions, newest first; `before` is the last version of the page before. */
export type VersionsQuery = { reader: AgentReader; limit: number; before?: number };
/** The agent (its latest version) and a page of its versions the reader sees; `next`: where the next page starts. */
export type VersionsPage = { agent: StoredAgent; versions: AgentVersion[]; next?: number };

/** An agent's latest version (`version` absent) or one version, as the edge resolves a name. */
export type AgentLookup = { agent: StoredAgent; version: AgentVersion };

export interface AgentsRpc {
  /** A new name (409 if it exists), or a deleted one made again: its versions go on from the last. */
  createAgent(name: string, record: AgentVersionRecord): Promise<Outcome<StoredAgent>>;
  /** The next version, made from the latest with `change` over it (404 for no such agent); unchanged, the latest as it is. */
  updateAgent(name: string, record: AgentVersionRecord): Promise<Outcome<StoredAgent>>;
  /** The agent goes from every door (404 after); its versions stay stored, so a name made again never reuses a number. */
  deleteAgent(name: string): Promise<Outcome<null>>;
  /** The latest version, and version `version` when asked (404 for a missing or deleted agent, or a version it never had). */
  lookup(name: string, version?: number): Promise<Outcome<AgentLookup>>;
  list(query: AgentsQuery): Promise<AgentsPage>;
  /** A page of the versions of agent `name` the reader sees (404 for no such agent, or one the reader does not see). */
  versions(name: string, query: VersionsQuery): Promise<Outcome<VersionsPage>>;
}

/** An agent's index of its runs (one object per agent name). */
export interface AgentRunsRpc {
  /** Applies the changes (in order) that are newer than the index holds; answers how many were. */
  apply(changes: InboxChange[]): Promise<Outcome<{ applied: number }>>;
  /** The agent's runs of every version and subject, newest first. */
  list(query: ListQuery): Promise<ListAnswer>;
}
