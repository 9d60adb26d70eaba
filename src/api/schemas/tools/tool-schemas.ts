// The tools a run may call (`tools` in POST /v1/runs): a built-in by name, an HTTP tool, a client
// tool, and the kinds of ./toolset-schemas.ts (client toolsets, provider tools).
import { z } from "@hono/zod-openapi";
import { httpUrlSchema } from "../../rules/http-url";
import { ASYNC_TIMEOUT_DEFAULT_SECONDS, ASYNC_TIMEOUT_MAX_SECONDS } from "../../rules/async-calls";
import { jsonObjectSchema } from "../../rules/json-object";
import { clientToolsetRefSchema, providerToolRefSchema } from "./toolset-schemas";
import { agentNameSchema, agentRefSchema, agentVersionSchema } from "../agents/agent-ref-schemas";
import type * as Api from "../../types";

export const httpToolRefSchema = z
  .strictObject({
    type: z.literal("http"),
    name: z.string().min(1),
    description: z.string(),
    inputSchema: jsonObjectSchema.openapi({ description: "JSON Schema (2020-12) of the input." }),
    url: httpUrlSchema,
    approval: z.boolean().optional(),
    once: z.boolean().optional().openapi({ description: "Never run twice, even across a crash." }),
    async: z
      .boolean()
      .optional()
      .openapi({ description: "The tool answers later: 202 Accepted, then a POST of the result to the call's callback URL." }),
    timeoutSeconds: z
      .number()
      .int()
      .gte(1)
      .lte(ASYNC_TIMEOUT_MAX_SECONDS)
      .optional()
      .openapi({ description: `For an async tool: how long the run waits for its result (default ${ASYNC_TIMEOUT_DEFAULT_SECONDS}, at most ${ASYNC_TIMEOUT_MAX_SECONDS}: 7 days).` }),
  })
  .superRefine((ref, context) => {
    // A synchronous call always has 30 seconds; a timeout there would promise what is not done.
    if (ref.timeoutSeconds !== undefined && ref.async !== true) {
      context.addIssue({ code: "custom", path: ["timeoutSeconds"], message: "timeoutSeconds is for async tools only (async: true)." });
    }
  })
  .openapi("HttpToolRef");

export const clientToolRefSchema = z
  .strictObject({
    type: z.literal("client"),
    name: z.string().min(1),
    description: z.string(),
    inputSchema: jsonObjectSchema,
  })
  .openapi("ClientToolRef");

/**
 * A tool that runs another agent as a child run. Its `run` (a template: the fields of POST /v1/runs
 * but `messages`, `subject` and `webhook`) is checked by the run body's schema, which knows them
 * (src/api/schemas/runs/create-run-schemas.ts): this schema only sees an object, so the OpenAPI document stays flat.
 */
export const agentToolRefSchema = z
  .strictObject({
    type: z.literal("agent"),
    name: z.string().min(1),
    description: z.string(),
    inputSchema: jsonObjectSchema.optional().openapi({ description: "JSON Schema of the input. Default: {task: string}, the task being the child's first user message." }),
    run: z
      .custom<Api.RunTemplate>((value) => typeof value === "object" && value !== null && !Array.isArray(value), { message: "Expected an object: the child run's template." })
      .openapi({ type: "object", description: "The child run's template: the fields of POST /v1/runs except messages, subject and webhook (tools may name further agents)." }),
    agent: z
      .strictObject({ name: agentNameSchema, version: agentVersionSchema })
      .optional()
      .openapi({ description: "Beside `run`: the stored agent and version the template was resolved from (set when a tool named one), a record only." }),
  })
  .openapi("AgentToolRef");

export const toolRefSchema = z
  .union([
    z.string().min(1).openapi({ description: "A built-in tool by name: ask, calculator, current_time." }),
    z.discriminatedUnion("type", [httpToolRefSchema, clientToolRefSchema, clientToolsetRefSchema, providerToolRefSchema, agentToolRefSchema]),
  ])
  .openapi("ToolRef");

/**
 * An agent tool naming a stored agent (docs/agents.md): resolved at the edge into an AgentToolRef
 * carrying the named version's template (src/http/agents/agent-tools.ts), before the one intake.
 */
export const agentToolByNameSchema = z
  .strictObject({
    type: z.literal("agent"),
    agent: agentRefSchema,
    name: z.string().min(1).optional().openapi({ description: "The tool's name. Default: the agent's name, with any character a tool name cannot hold replaced by _." }),
    description: z.string().optional().openapi({ description: "Default: the agent's description." }),
  })
  .openapi("AgentToolByNameRef");

const agentToolUnion = z.union([agentToolRefSchema, agentToolByNameSchema]);

/**
 * An agent tool as a request gives it: inline (with `run`), or naming a stored agent (with `agent`).
 * A discriminated union takes one option per `type`, so the option is a pipe from its `type` to the
 * union of both forms; its input is typed as the union's (what the pipe lets through).
 */
const agentToolInputSchema = z
  .looseObject({ type: z.literal("agent") })
  .pipe(agentToolUnion)
  // The document would show the pipe's input (an object with a type) alone: it names both forms
  // (AgentToolByNameRef is registered with the document's components, src/http/app.ts).
  .openapi({ anyOf: [{ $ref: "#/components/schemas/AgentToolRef" }, { $ref: "#/components/schemas/AgentToolByNameRef" }] }) as unknown as AgentToolInput;

type AgentToolInput = z.ZodType<z.output<typeof agentToolUnion>, z.input<typeof agentToolUnion>> & z.core.$ZodTypeDiscriminable;

/** A tool as a request gives it (the body of POST /v1/runs, a schedule's run, an agent's template): ToolRef, or an agent tool naming a stored agent. */
export const toolRefInputSchema = z
  .union([
    z.string().min(1).openapi({ description: "A built-in tool by name: ask, calculator, current_time." }),
    z.discriminatedUnion("type", [httpToolRefSchema, clientToolRefSchema, clientToolsetRefSchema, providerToolRefSchema, agentToolInputSchema]),
  ])
  .openapi("ToolRefInput");

const NOT_IN_TOOL_NAME = /[^a-zA-Z0-9_-]/g;

/** The default name of a tool naming agent `agentName`: its name, with any character a tool name cannot hold replaced by _. */
export function agentToolName(agentName: string): string {
  return agentName.replace(NOT_IN_TOOL_NAME, "_").slice(0, 64);
}

export function toolNameOf(ref: Api.ToolRefInput): string {
  if (typeof ref === "string") return ref;
  if (ref.type === "provider") return ref.spec.name;
  if (ref.type === "agent" && !("run" in ref)) return ref.name ?? agentToolName(typeof ref.agent === "string" ? ref.agent : ref.agent.name);
  return ref.name;
}
