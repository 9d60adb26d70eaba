// A run of a stored agent (POST /v1/runs {agent}): the agent's template with what the caller may
// still set, pure. The caller sets the messages, the subject, the run's own webhook, its tags and metadata
// (merged over the agent's, the run's keys winning), and a budget of at most the agent's (its
// template's, else BUDGET_USD_DEFAULT, which a run without a budget gets). Everything else is the
// agent's: the body's schema refuses any other field (agent-run-fields.ts names them). What the body
// may then do is the one intake's to say, with the agent's version as its source: what the template
// holds was admitted when the version was made, for the deployment; what the caller adds is held to
// the caller's rights (src/intake/caller-rights.ts).
import type { AgentOfRun, AgentVersion } from "../../api/resources/agent-types";
import type { AgentRunInput } from "../../api/schemas/agents/agent-schemas";
import { metadataSchema } from "../../api/schemas/runs/create-run-schemas";
import type { CreateRunInput } from "../../api/schemas/runs/create-run-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import type { IntakeSource } from "../../intake/admit-run";
import { invalidRequest } from "../errors";

/** What a caller of an agent gives besides the agent's name. */
export type AgentRunFields = Omit<AgentRunInput, "agent">;

/** The full run body, the agent it came from, and the source the intake holds it to. */
export type ResolvedAgentRun = { body: CreateRunInput; agent: AgentOfRun; source: IntakeSource };

/** The most a run of `agent` may spend: its template's budget, else the deployment's default. */
export function agentBudgetUsd(agent: AgentVersion, budgetUsdDefault: number): number {
  return agent.run.budget?.usd ?? budgetUsdDefault;
}

/** The run body of `agent` with the caller's `fields`, or a 400 naming each field at fault. */
export function agentRunBody(agent: AgentVersion, fields: AgentRunFields, budgetUsdDefault: number): ResolvedAgentRun {
  const issues: Issue[] = [];
  const ceiling = agentBudgetUsd(agent, budgetUsdDefault);
  if (fields.budget !== undefined && fields.budget.usd > ceiling) {
    issues.push({ path: "budget.usd", message: `At most ${ceiling}, the budget of agent ${agent.name} (version ${agent.version}).` });
  }
  const metadata = fields.metadata === undefined ? agent.run.metadata : { ...agent.run.metadata, ...fields.metadata };
  if (metadata !== undefined && !metadataSchema.safeParse(metadata).success) {
    issues.push({ path: "metadata", message: "With the agent's metadata, at most 16 KiB as JSON." });
  }
  if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
  // The template's fields as the run body's schema reads them (a stored template was parsed by it).
  const body: CreateRunInput = { ...(agent.run as Omit<CreateRunInput, "messages">), messages: fields.messages };
  if (metadata !== undefined) body.metadata = metadata;
  if (fields.budget !== undefined) body.budget = fields.budget;
  if (fields.subject !== undefined) body.subject = fields.subject;
  if (fields.webhook !== undefined) body.webhook = fields.webhook;
  if (fields.tags !== undefined) body.tags = fields.tags;
  return { body, agent: { name: agent.name, version: agent.version }, source: { body: agent.run, provider: agent.provider, model: agent.model } };
}
