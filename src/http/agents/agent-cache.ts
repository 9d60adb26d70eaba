// Reads of the agents object, cached in the Worker's isolate: a version is immutable once made, so
// versions are kept as long as the isolate lives (up to VERSIONS_KEPT of them); the latest version
// of a name for LATEST_TTL_MS only, so a change made through another isolate is seen within that
// time. A change made through this isolate drops its name at once (forgetAgent), so a client that
// changes an agent and then starts a run of it gets the new version from the same isolate. A miss
// (no such agent, a deleted one) is kept for MISS_TTL_MS, so a door anyone may knock on (the public
// A2A card) cannot make every knock a call of the one object every agent read goes through; an
// agent made through this isolate drops its name's miss at once, one made through another is found
// within MISS_TTL_MS. A name that does not fit the agents' pattern is a miss without a call.
import { AGENT_NAME_PATTERN, AGENT_NOT_FOUND, type AgentVersion, type StoredAgent } from "../../api/resources/agent-types";
import type { AgentLookup } from "../../api/rpc/agents-rpc";
import { ERROR_CODES } from "../../api/rules/error-codes";
import type { Outcome } from "../../api/types";
import { agentsStub } from "../../durable/agents/agents-stub";

/** How long the latest version of a name is taken from the cache. */
export const LATEST_TTL_MS = 5_000;
/** How long a name found to be no agent is answered so from the cache. */
export const MISS_TTL_MS = 5_000;
/** Versions (and names, and misses) kept at most; past it the cache starts again empty. */
const VERSIONS_KEPT = 1_000;

const latest = new Map<string, { agent: StoredAgent; until: number }>();
const versions = new Map<string, AgentVersion>();
const misses = new Map<string, number>();

const NO_SUCH_AGENT: Outcome<never> = { ok: false, status: 404, error: { code: ERROR_CODES[404], message: AGENT_NOT_FOUND } };

const versionKey = (name: string, version: number): string => `${name}@${version}`;

function keep(agent: AgentVersion): void {
  if (versions.size >= VERSIONS_KEPT) versions.clear();
  versions.set(versionKey(agent.name, agent.version), agent);
}

function keepLatest(agent: StoredAgent, now: number): void {
  if (latest.size >= VERSIONS_KEPT) latest.clear();
  latest.set(agent.name, { agent, until: now + LATEST_TTL_MS });
  keep(agent);
}

function keepMiss(name: string, now: number): void {
  if (misses.size >= VERSIONS_KEPT) misses.clear();
  misses.set(name, now + MISS_TTL_MS);
}

/** This isolate forgets what it holds of `name`'s latest version, and that it was no agent (after a create, change or delete made here). */
export function forgetAgent(name: string): void {
  latest.delete(name);
  misses.delete(name);
}

/**
 * The agent `name` (its latest version) and the version asked for (the latest when `version` is
 * absent), from the cache where it may be, else from the agents object: 404 for an unknown or
 * deleted agent or a version it never had.
 */
export async function lookupAgent(env: Env, name: string, version: number | undefined, now: number = Date.now()): Promise<Outcome<AgentLookup>> {
  if (!AGENT_NAME_PATTERN.test(name)) return NO_SUCH_AGENT;
  if ((misses.get(name) ?? 0) > now) return NO_SUCH_AGENT;
  const held = latest.get(name);
  if (held !== undefined && held.until > now) {
    if (version === undefined || version === held.agent.version) return { ok: true, value: { agent: held.agent, version: held.agent } };
    // A version from before the agent's last delete is no version of it (the object has none):
    // numbers never repeat, so a version from the first on is one of the agent as it is now.
    const kept = version >= held.agent.firstVersion ? versions.get(versionKey(name, version)) : undefined;
    if (kept !== undefined) return { ok: true, value: { agent: held.agent, version: kept } };
  }
  const answer = await agentsStub(env).lookup(name, version);
  if (answer.ok) {
    misses.delete(name);
    keepLatest(answer.value.agent, now);
    keep(answer.value.version);
  } else {
    forgetAgent(name);
    // No such agent (not: an agent without that version).
    if (answer.error.message === AGENT_NOT_FOUND) keepMiss(name, now);
  }
  return answer;
}
