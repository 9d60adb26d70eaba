// Stored agents as the API takes and shows them (docs/agents.md): the bodies of /v1/agents, an
// agent's view, and the body of POST /v1/runs that names an agent instead of carrying a template.
// A template (`run`) is the same schema an agent tool's template has (../runs/create-run-schemas.ts).
import { z } from "@hono/zod-openapi";
import { jsonObjectSchema } from "../../rules/json-object";
import { subjectSchema } from "../../rules/subject";
import { chatMessageInputSchema } from "../runs/content-schemas";
import { budgetSchema, createRunBodySchema, metadataSchema, runTemplateSchema, webhookSchema } from "../runs/create-run-schemas";
import { tagsSchema } from "../../rules/tags";

import { agentNameSchema, agentRefSchema } from "./agent-ref-schemas";

export { agentNameSchema, agentRefSchema };

/** An agent's input schema: a JSON Schema of an object, as MCP hosts and agent tools call an agent with one. */
const agentInputSchema = jsonObjectSchema
  .refine((schema) => schema.type === "object", { message: 'Must be a JSON Schema of an object (type: "object"): MCP hosts and agent tools call an agent with one.' })
  .openapi({ description: "JSON Schema of the input MCP hosts and agent tools call the agent with. Default: {task: string}." });

const descriptionSchema = z.string().min(1).max(4_000);

const templateSchema = (runTemplateSchema as unknown as z.ZodType<Record<string, unknown>>).openapi({
  type: "object",
  description: "The run template: the fields of POST /v1/runs except messages, subject and webhook. Checked by the same intake as a run.",
});

export const createAgentBodySchema = z
  .strictObject({
    name: agentNameSchema,
    description: descriptionSchema,
    run: templateSchema,
    inputSchema: agentInputSchema.optional(),
    subject: subjectSchema.optional().openapi({ description: "Only this subject's user tokens see and call the agent. Without it, every user token of the deployment does." }),
  })
  .openapi("CreateAgentBody");

export const updateAgentBodySchema = z
  .strictObject({
    description: descriptionSchema.optional(),
    run: templateSchema.optional().openapi({ description: "The whole new template (it replaces the old one)." }),
    inputSchema: agentInputSchema.nullable().optional().openapi({ description: "null removes it." }),
    subject: subjectSchema.nullable().optional().openapi({ description: "null makes the agent visible to every user token." }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "Nothing to change: give description, run, inputSchema or subject." })
  .openapi("UpdateAgentBody");

export const agentViewSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    description: z.string(),
    run: jsonObjectSchema.optional().openapi({ description: "The template, through the one redaction (no MCP header values, no credential in a URL). Deployment token only: a user token sees no template." }),
    inputSchema: jsonObjectSchema.optional(),
    subject: z.string().optional(),
    provider: z
      .enum(["anthropic", "openai", "scripted", "default"])
      .optional()
      .openapi({ description: 'What the intake resolved the template to; "default" for a template that names no provider (and no script): each run takes the deployment\'s provider when it is made. Deployment token only.' }),
    model: z.string().optional().openapi({ description: 'The model; "default" where the provider is "default" and the template names no model (the provider\'s default model when the run is made). Deployment token only.' }),
    createdAt: z.string().openapi({ description: "When the name was made." }),
    versionCreatedAt: z.string().openapi({ description: "When this version was made." }),
  })
  .openapi("Agent");

export const agentAnswerSchema = z.object({ agent: agentViewSchema }).openapi("AgentAnswer");

export const agentsPageSchema = z
  .object({ agents: z.array(agentViewSchema), nextCursor: z.string().optional().openapi({ description: "Absent on the last page." }) })
  .openapi("AgentsPage");

export const agentVersionsPageSchema = z
  .object({
    versions: z.array(agentViewSchema).openapi({ description: "Newest first, each as the caller may see it (a user token: the versions whose own subject is absent or its own, without their template)." }),
    nextCursor: z.string().optional().openapi({ description: "Absent on the last page." }),
  })
  .openapi("AgentVersionsPage");

/** The fields a run of a stored agent may set; the rest is the agent's. */
export const agentRunBodySchema = z
  .strictObject({
    agent: agentRefSchema,
    messages: z.array(chatMessageInputSchema).min(1, { message: "At least one message is needed." }),
    subject: subjectSchema.optional().openapi({ description: "Deployment token only (a user token's runs get its own subject)." }),
    metadata: metadataSchema.optional().openapi({ description: "Merged over the agent's metadata (the run's keys win); at most 16 KiB in all." }),
    webhook: webhookSchema.optional().openapi({ description: "Deployment token only: this run's own webhook receiver." }),
    budget: budgetSchema.optional().openapi({ description: "At most the agent's budget (its template's, else BUDGET_USD_DEFAULT)." }),
    tags: tagsSchema.optional(),
  })
  .openapi("AgentRunBody");

export type CreateAgentInput = z.infer<typeof createAgentBodySchema>;
export type UpdateAgentInput = z.infer<typeof updateAgentBodySchema>;
export type AgentRunInput = z.infer<typeof agentRunBodySchema>;

/** POST /v1/runs: a whole run body, or a stored agent and the fields its caller may set. */
export const runRequestBodySchema = z.union([createRunBodySchema, agentRunBodySchema]);
