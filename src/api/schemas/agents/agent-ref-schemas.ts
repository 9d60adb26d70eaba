// An agent's name and a reference to one (a name, or a name and version), as a run, a schedule's
// run and an agent tool name a stored agent (docs/agents.md). Apart from agent-schemas.ts, which
// needs the run body's schemas, so that the tools' schemas can name an agent too.
import { z } from "@hono/zod-openapi";
import { AGENT_NAME_PATTERN } from "../../resources/agent-types";

export const AGENT_NAME_MESSAGE = "Must be 1–64 characters of a-z, 0-9 and -.";

export const agentNameSchema = z.string().regex(AGENT_NAME_PATTERN, { message: AGENT_NAME_MESSAGE }).openapi({ example: "support-triage" });

export const agentVersionSchema = z.number().int().gte(1).openapi({ description: "A version number: 1 for the first, one more for each change." });

export const agentRefSchema = z
  .union([agentNameSchema, z.strictObject({ name: agentNameSchema, version: agentVersionSchema.optional() })])
  .openapi("AgentRef", { description: "An agent by name (its latest version), or {name, version} for one version." });
