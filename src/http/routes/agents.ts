// /v1/agents: stored agents (docs/agents.md). Each handler parses (the route's schemas did), checks
// a new template with the one intake, asks the agents object, and answers. A change made here is
// forgotten by this isolate's cache at once (src/http/agents/agent-cache.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AgentVersionRecord } from "../../api/resources/agent-types";
import { AGENT_NOT_FOUND } from "../../api/resources/agent-types";
import { LIST_LIMIT_DEFAULT } from "../../api/schemas/subject/inbox-schemas";
import type { RunTemplate } from "../../api/types";
import { agentsStub } from "../../durable/agents/agents-stub";
import { forgetAgent } from "../agents/agent-cache";
import { admitAgentTemplate } from "../agents/agent-template";
import { withAgentTools } from "../agents/agent-tools";
import { agentViewOf } from "../agents/agent-view";
import { listAgents, requireAgent } from "../agents/agents";
import type { AppEnv } from "../app-env";
import { readerOf } from "../auth/agent-auth";
import { ApiException, validationHook } from "../errors";
import { unwrap } from "../outcome";
import { createAgentRoute, deleteAgentRoute, getAgentRoute, getAgentVersionRoute, listAgentsRoute, updateAgentRoute } from "./definitions/agent-routes";

export function agentsApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(createAgentRoute, async (c) => {
    const { name, description, inputSchema, subject } = c.req.valid("json");
    // A template's agent tools naming stored agents are resolved now: the version pins them (docs/agents.md).
    const run = await withAgentTools(c.env, readerOf(c.var.creator), c.req.valid("json").run as RunTemplate, "run.tools");
    const record: AgentVersionRecord = { description, run, ...admitAgentTemplate(c.env, c.var.settings, run) };
    if (inputSchema !== undefined) record.inputSchema = inputSchema;
    if (subject !== undefined) record.subject = subject;
    const agent = unwrap(await agentsStub(c.env).createAgent(name, record));
    forgetAgent(name);
    return c.json({ agent: agentViewOf(readerOf(c.var.creator), agent) }, 201);
  });

  app.openapi(listAgentsRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const reader = readerOf(c.var.creator);
    const page = await listAgents(c.env, reader, { limit: limit === undefined ? LIST_LIMIT_DEFAULT : Number(limit), ...(cursor === undefined ? {} : { after: cursor }) });
    return c.json({ agents: page.agents.map((agent) => agentViewOf(reader, agent)), ...(page.next === undefined ? {} : { nextCursor: page.next }) }, 200);
  });

  app.openapi(getAgentRoute, async (c) => {
    const reader = readerOf(c.var.creator);
    const { agent } = await requireAgent(c.env, reader, c.req.valid("param").name);
    return c.json({ agent: agentViewOf(reader, agent) }, 200);
  });

  app.openapi(getAgentVersionRoute, async (c) => {
    const { name, version } = c.req.valid("param");
    const reader = readerOf(c.var.creator);
    const found = await requireAgent(c.env, reader, name, Number(version));
    return c.json({ agent: agentViewOf(reader, found.agent, found.version) }, 200);
  });

  app.openapi(updateAgentRoute, async (c) => {
    const { name } = c.req.valid("param");
    const change = c.req.valid("json");
    // The latest as stored now (not the cache's): the new version is made from it.
    const latest = unwrap(await agentsStub(c.env).lookup(name)).agent;
    const run = change.run === undefined ? latest.run : await withAgentTools(c.env, readerOf(c.var.creator), change.run as RunTemplate, "run.tools");
    const { provider, model } = change.run === undefined ? latest : admitAgentTemplate(c.env, c.var.settings, run);
    const record: AgentVersionRecord = { description: change.description ?? latest.description, run, provider, model };
    const inputSchema = change.inputSchema === undefined ? latest.inputSchema : (change.inputSchema ?? undefined);
    const subject = change.subject === undefined ? latest.subject : (change.subject ?? undefined);
    if (inputSchema !== undefined) record.inputSchema = inputSchema;
    if (subject !== undefined) record.subject = subject;
    const agent = unwrap(await agentsStub(c.env).updateAgent(name, record));
    forgetAgent(name);
    return c.json({ agent: agentViewOf(readerOf(c.var.creator), agent) }, 200);
  });

  app.openapi(deleteAgentRoute, async (c) => {
    const { name } = c.req.valid("param");
    const answer = await agentsStub(c.env).deleteAgent(name);
    forgetAgent(name);
    if (!answer.ok) throw new ApiException(404, AGENT_NOT_FOUND);
    return c.body(null, 204);
  });

  return app;
}
