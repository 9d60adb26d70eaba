// What the A2A door needs of stored agents: find one by name for a caller, start a run of it
// through the one create path (startRun, as POST /v1/runs {agent} does), list the runs of it a
// caller reaches, and tell whether a run is one of its runs. The agents themselves (their object,
// their cache, the run body of a run of one) are src/http/agents' and src/durable/agents'.
import type { Context } from "hono";
import type { AgentReader } from "../../api/resources/agent-types";
import type { RunView } from "../../api/types";
import type { AppEnv, Creator } from "../app-env";
import { findAgent as lookupAgent } from "../agents/agents";
import { readerOf } from "../auth/agent-auth";
import { startRun } from "../intake/start-run";
import { inboxStub } from "../../durable/inbox/inbox-stub";
import { A2aError } from "../../api/a2a/json-rpc";
import { A2A_ERRORS } from "../../api/a2a/a2a-types";
import type { ListPosition } from "../../api/rpc/inbox-rpc";

export type A2aAgent = { name: string; description: string; version: number };

/** Who asks: a caller's creator, or undefined for the card's read without credentials. */
export type AgentAsker = Creator | undefined;

/**
 * The agent `name` as `asker` sees it. Without credentials only the agents every caller sees are
 * found (an agent of one subject has no public card: its name tells nothing).
 */
export async function findAgent(c: Context<AppEnv>, name: string, asker: AgentAsker): Promise<A2aAgent | undefined> {
  const reader: AgentReader = asker === undefined ? { kind: "deployment" } : readerOf(asker);
  const found = await lookupAgent(c.env, reader, name);
  if (found === undefined || (asker === undefined && found.agent.subject !== undefined)) return undefined;
  return { name: found.agent.name, description: found.agent.description, version: found.agent.version };
}

/**
 * A new run of `agent` (its latest version) for the caller whose creator admitCreator set, with
 * `text` its first user message. The message's id is the create's Idempotency-Key, so a client
 * that sends the same message again gets the same run.
 */
export async function startAgentRun(c: Context<AppEnv>, agent: A2aAgent, text: string, messageId: string): Promise<{ runId: string }> {
  const { run } = await startRun({
    body: { agent: agent.name, messages: [{ role: "user", content: text }] },
    env: c.env,
    settings: c.var.settings,
    creator: c.var.creator,
    origin: new URL(c.req.url).origin,
    idempotencyKey: `a2a:${agent.name}:${messageId}`,
  });
  return { runId: run.id };
}

/** One page of a subject's runs of the agent: each run's place in the listing, and where the next page starts. */
export type AgentRunsPage = { runs: ListPosition[]; next?: ListPosition };

/**
 * One page of the agent's runs that a user token's subject holds, newest first, from the subject's
 * run listing (its inbox), as GET /v1/runs?agent= lists them. The deployment token has no listing of every subject's runs (as GET
 * /v1/runs): it names the run, `contextId`.
 */
export async function listAgentRuns(c: Context<AppEnv>, agent: A2aAgent, limit: number, after: ListPosition | undefined): Promise<AgentRunsPage> {
  if (c.var.caller !== "user") {
    throw new A2aError(A2A_ERRORS.invalidParams, "The deployment token lists one context's tasks: name the run as contextId (a user token lists its subject's).", { issues: [{ path: "contextId", message: "Required with the deployment token." }] });
  }
  const page = await inboxStub(c.env, c.var.user.subject).list(after === undefined ? { limit, agent: agent.name } : { limit, agent: agent.name, after });
  const answer: AgentRunsPage = { runs: page.runs.map((run) => ({ createdAt: run.createdAt, id: run.id })) };
  if (page.next !== undefined) answer.next = page.next;
  return answer;
}

/** Whether the run was made from this agent (any version). */
export function isRunOf(view: RunView, agent: A2aAgent): boolean {
  return view.agent?.name === agent.name;
}
