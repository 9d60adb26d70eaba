// What the MCP server of one request may reach, for its caller: the agents it sees as tools
// (src/http/agents), a run of one started by startRun (the one create path: the agent resolved, the
// one intake, the creation rate limits as POST /v1/runs counts them), the run's events (through the
// one watch, as the caller: a revocation ends the call's wait) and links, and the session's
// idempotency key for a request id.
import type { Context } from "hono";
import type { StoredAgent } from "../../../api/resources/agent-types";
import type { AppEnv, Creator } from "../../app-env";
import { findAgent, listAgents } from "../../agents/agents";
import { readerOf } from "../../auth/agent-auth";
import type { Caller } from "../../auth/auth";
import { limitDeploymentCreation, limitSubjectCreation } from "../../auth/rate-limit";
import { startRun } from "../../intake/start-run";
import { runStub } from "../../run-stub";
import { taskOf, toolInputSchema } from "./agent-input";
import { AGENT_TOOL_ANNOTATIONS, toolOutputSchema } from "./tool-output";
import { runLinks } from "./call-results";
import type { AgentTool, McpDeps } from "../session/mcp-server";
import type { McpSession } from "../session/mcp-session";
import { readRunEvents } from "./run-events";
import { runWatch } from "../../routes/runs/run-watch";
import { isRunId } from "../../ids/ids";
import { notFound } from "../../errors";
import { answerRun } from "../../intake/answer-run";
import { unwrap } from "../../outcome";

/** Agents read per page of the listing. */
const PAGE = 100;

/** The Idempotency-Key of a call: the session's and the JSON-RPC request id's (a string id and a number id never meet). */
export function callKey(session: McpSession, requestId: string | number): string {
  return `mcp:${session.id}:${typeof requestId}:${requestId}`;
}

export function agentTool(agent: StoredAgent): AgentTool {
  const tool: AgentTool = { name: agent.name, description: agent.description, inputSchema: toolInputSchema(agent.inputSchema), annotations: { title: agent.name, ...AGENT_TOOL_ANNOTATIONS } };
  const outputSchema = toolOutputSchema(agent.run.output);
  if (outputSchema !== undefined) tool.outputSchema = outputSchema;
  return tool;
}

export function creatorOf(caller: Exclude<Caller, { kind: "run" }>): Creator {
  if (caller.kind === "deployment") return { kind: "deployment" };
  const creator: Creator = { kind: "user", subject: caller.subject };
  if (caller.claims.budgetUsdPerDay !== undefined) creator.budgetUsdPerDay = caller.claims.budgetUsdPerDay;
  return creator;
}

export function mcpDeps(c: Context<AppEnv>, caller: Exclude<Caller, { kind: "run" }>, session: McpSession | undefined): McpDeps {
  const origin = new URL(c.req.url).origin;
  const creator = creatorOf(caller);
  const reader = readerOf(creator);
  return {
    agents: async () => {
      const tools: AgentTool[] = [];
      let after: string | undefined;
      do {
        const page = await listAgents(c.env, reader, after === undefined ? { limit: PAGE } : { limit: PAGE, after });
        tools.push(...page.agents.map(agentTool));
        after = page.next;
      } while (after !== undefined);
      return tools;
    },
    start: async (name, args, key) => {
      // Unknown, deleted and another subject's agents are one answer: no such tool.
      const found = await findAgent(c.env, reader, name);
      if (found === undefined) return undefined;
      const content = taskOf(args, found.agent.inputSchema);
      if (caller.kind === "deployment") await limitDeploymentCreation(c.env, caller.token);
      else await limitSubjectCreation(c.env, caller.subject);
      const { run } = await startRun({ body: { agent: { name, version: found.agent.version }, messages: [{ role: "user", content }] }, env: c.env, settings: c.var.settings, creator, origin, idempotencyKey: key });
      return run;
    },
    answer: async (runId, body) => {
      // Reached as on the run's HTTP routes: the deployment token, or a user token of the run's subject.
      if (!(await isRunId(runId, c.var.settings.runIdKeys))) throw notFound();
      const run = runStub(c.env, runId);
      if (caller.kind === "user" && !(await run.authorizeSubject(caller.subject))) throw notFound();
      return unwrap(await answerRun(run, body));
    },
    events: (runId, after) => readRunEvents(runWatch(c, runStub(c.env, runId), runId), after),
    links: (runId) => runLinks(origin, runId),
    keyOf: (requestId) => (session === undefined ? undefined : callKey(session, requestId)),
    elicitation: session?.elicitation ?? false,
    callSeconds: c.var.settings.limits.mcpCallSeconds,
  };
}
