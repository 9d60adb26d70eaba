// The body of POST /v1/runs: what a run is made of (its messages, tools, model, caps and budget),
// with the rules that span fields (unique tool names, finish tools among the tools, no records of
// the service's own in a history). Like every schema of src/api/schemas/, it validates at the
// edge and, through @hono/zod-openapi, writes the OpenAPI document (docs/api.md), so the contract
// is written down once; ../../schema-checks.ts checks what it infers against ../../types.ts. Every object
// a client sends is strict: an unknown field (a typo such as `maxStep`, or a field of a newer API)
// is refused with a 400 that names it, instead of being silently ignored.
import { z } from "@hono/zod-openapi";
import { httpUrlSchema } from "../../rules/http-url";
import { scriptSchema } from "../../../providers/scripted/scripted";
import { laterDuplicates } from "../../../lib/duplicates";
import { chatMessageInputSchema } from "./content-schemas";
import { jsonObjectSchema } from "../../rules/json-object";
import { mcpServersSchema } from "../tools/mcp-schemas";
import { outputSchema } from "./output-schemas";
import { loopGuardsSchema } from "./loop-guards-schemas";
import { guardrailsSchema } from "./guardrail-schemas";
import { subjectSchema } from "../../rules/subject";
import { tagsSchema } from "../../rules/tags";
import { toolNameOf, toolRefInputSchema } from "../tools/tool-schemas";
import type * as Api from "../../types";

const METADATA_MAX_BYTES = 16 * 1024;

function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

export const budgetSchema = z
  .strictObject({
    usd: z.number().gt(0),
    finishAt: z.number().gt(0).lte(1).optional(),
    spentUsd: z.number().gte(0).optional(),
  })
  .openapi("Budget");

/** A run's metadata: any JSON object of at most 16 KiB. */
export const metadataSchema = jsonObjectSchema.refine((value) => jsonBytes(value) <= METADATA_MAX_BYTES, { message: "Metadata must be at most 16 KiB as JSON." });

/** The type prefix of the blocks the service records in a history (src/loop/context/container.ts, src/loop/context/context-view.ts). */
const RECORD_PREFIX = "ratchet.";

/** The fields a run and a child run's template share: all of the body but messages, subject and webhook. */
const runFields = {
    system: z.string().optional(),
    tools: z.array(toolRefInputSchema).optional().openapi({ description: "An agent tool may name a stored agent ({type: \"agent\", agent}): resolved when the run is made, that version pinned (docs/agents.md)." }),
    mcpServers: mcpServersSchema.optional().openapi({ description: "MCP servers whose tools the model may call, as <server>__<tool> (docs/mcp.md). Deployment token only." }),
    finishTools: z.array(z.string().min(1)).optional(),
    model: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({
        description:
          "Default: DEFAULT_OPENAI_MODEL on provider openai, else DEFAULT_MODEL. On a real provider the model needs a known price (built in, or a row of the PRICES setting): else 400.",
      }),
    provider: z
      .enum(["anthropic", "openai", "scripted"])
      .optional()
      .openapi({ description: 'Default: "scripted" with a script, else "anthropic" with ANTHROPIC_API_KEY set, else "openai" with OPENAI_API_KEY set, else "scripted".' }),
    maxSteps: z
      .number()
      .int()
      .gte(1)
      .optional()
      .openapi({ description: "Model calls over the whole run (answers do not reset it). Default 10; at most MAX_STEPS_LIMIT." }),
    budget: budgetSchema.optional().openapi({ description: "Default: { usd: BUDGET_USD_DEFAULT }; usd at most BUDGET_USD_LIMIT." }),
    finishNote: z.string().optional(),
    keepImages: z.number().int().gte(0).optional(),
    imagePruning: z
      .enum(["exact", "batched"])
      .optional()
      .openapi({ description: 'Default "exact": images past keepImages go at once. "batched": keepImages at a time, so the cached prefix changes less often.' }),
    maxToolResultTokens: z
      .number()
      .int()
      .gte(100)
      .optional()
      .openapi({ description: "Tool results past this size are cut in requests (with a note); the history keeps them whole. Default 20,000." }),
    compaction: z
      .strictObject({
        mode: z.enum(["auto", "native", "summary", "off"]).optional().openapi({ description: 'Default "auto": native where the provider has it, else summary.' }),
        atTokens: z.number().int().gte(1_000).optional().openapi({ description: "Compact once a prompt passes this many tokens. Default: 75% of the model's context window." }),
        instructions: z.string().max(10_000).optional().openapi({ description: "Extra instructions for the summary." }),
      })
      .optional()
      .openapi("Compaction"),
    minAnswerChars: z
      .number()
      .int()
      .gte(0)
      .optional()
      .openapi({ description: "After tool work, a final answer shorter than this many characters gets one more model call, with no tools, asking for the whole answer. Default 100; 0 turns the check off." }),
    loopGuards: loopGuardsSchema.optional(),
    output: outputSchema.optional().openapi({ description: "Typed final output: a finish tool (default final_answer) whose input, checked against `schema`, is the run's `final`." }),
    maxTokens: z.number().int().gte(1).optional(),
    reasoning: z
      .union([z.boolean(), z.null(), z.literal("adaptive"), z.strictObject({ budgetTokens: z.number().int().gte(1) })])
      .optional()
      .openapi({ description: 'Extended thinking: true (a 4,096-token budget), { budgetTokens }, or "adaptive".' }),
    script: scriptSchema.optional().openapi({ description: 'For provider "scripted" only: the turns it plays.' }),
    metadata: metadataSchema.optional(),
    guardrails: guardrailsSchema.optional().openapi({ description: "Checks that can stop the run: on the question, each tool call, the final answer (docs/guardrails.md). A user or run token may use the data kinds only (regex, deny, json-schema, size)." }),
};

type ToolsAndFinish = { tools?: unknown[] | undefined; finishTools?: string[] | undefined; script?: unknown; provider?: string | undefined };

/**
 * The rules of a run's tools that span fields (unique names, finish tools among the tools) and an
 * agent tool's template, checked as a template (recursively: a template's tools may name agents).
 */
function checkTools(body: ToolsAndFinish, context: z.RefinementCtx): void {
  const tools = (body.tools ?? []) as Api.ToolRefInput[];
  const names = tools.map(toolNameOf);
  for (const { index } of laterDuplicates(names)) {
    context.addIssue({ code: "custom", path: ["tools", index], message: `Duplicate tool name: ${names[index]}.` });
  }
  const indexOfName = new Map<string, number>();
  names.forEach((name, index) => {
    if (!indexOfName.has(name)) indexOfName.set(name, index);
  });
  (body.finishTools ?? []).forEach((name, index) => {
    const at = indexOfName.get(name);
    if (at === undefined) {
      context.addIssue({ code: "custom", path: ["finishTools", index], message: `Finish tool ${name} is not in tools.` });
    }
    const ref = at === undefined ? undefined : tools[at];
    if (typeof ref === "object" && (ref.type === "client-toolset" || ref.type === "provider")) {
      context.addIssue({ code: "custom", path: ["finishTools", index], message: `${name} is a ${ref.type === "provider" ? "provider tool" : "client toolset"}: a finish tool is one the run calls.` });
    }
  });
  tools.forEach((ref, index) => {
    if (typeof ref !== "object" || ref.type !== "agent" || !("run" in ref)) return;
    const parsed = runTemplateSchema.safeParse(ref.run);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      const path = ["tools", index, "run", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
      // One issue per unknown field, at the field itself (as the body's own are named).
      if (issue.code === "unrecognized_keys") for (const key of issue.keys) context.addIssue({ code: "custom", path: [...path, key], message: "Unknown field." });
      else context.addIssue({ code: "custom", path, message: issue.message });
    }
  });
  if (body.script !== undefined && body.provider !== undefined && body.provider !== "scripted") {
    context.addIssue({ code: "custom", path: ["script"], message: 'A script is for provider "scripted" only.' });
  }
}

/** A child run's template (an agent tool's `run`): admitted with the parent and again when its child starts (src/intake/admit-run.ts), never stored apart. */
export const runTemplateSchema: z.ZodType<Api.RunTemplate> = z.strictObject(runFields).superRefine((template, context) => checkTools(template, context)) as unknown as z.ZodType<Api.RunTemplate>;

const { system: _system, ...fieldsAfterSystem } = runFields;

/** A run's own webhook receiver. */
export const webhookSchema = z.strictObject({ url: httpUrlSchema.openapi({ description: "Its host must be on HTTP_TOOL_ALLOW (https, or http for an http:// entry)." }) });

/** The run fields a template holds: a run of a stored agent may set none of them but `budget` and `metadata` (docs/agents.md). */
export const TEMPLATE_FIELDS: readonly string[] = Object.keys(runFields);

export const createRunBodySchema = z
  .strictObject({
    // The system prompt and the messages first, as a body is usually written (issues come in this order).
    system: runFields.system,
    messages: z.array(chatMessageInputSchema).min(1, { message: "At least one message is needed." }),
    ...fieldsAfterSystem,
    subject: subjectSchema.optional().openapi({
      description: "Deployment token only: the subject (an app's user id) whose inbox lists the run. A user token's runs always get its own subject.",
    }),
    webhook: webhookSchema
      .optional()
      .openapi({ description: "Deployment token only: this run's own webhook receiver, besides the deployment's WEBHOOK_URL." }),
    tags: tagsSchema.optional(),
  })
  .superRefine((body, context) => {
    checkTools(body, context);
    // A history's records of the service's own (a code-execution container, a summary) are the
    // service's to write: a run must not attach itself to another run's container.
    body.messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      (message.providerBlocks ?? []).forEach((block, at) => {
        const type = (block as { type?: unknown } | null)?.type;
        if (typeof type === "string" && type.startsWith(RECORD_PREFIX)) {
          context.addIssue({
            code: "custom",
            path: ["messages", index, "providerBlocks", at, "type"],
            message: `Blocks of type ${RECORD_PREFIX}* are the service's own records (a code-execution container, a summary) and cannot be given in a history; leave them out.`,
          });
        }
      });
    });
  })
  .openapi("CreateRunBody");

export type CreateRunInput = z.infer<typeof createRunBodySchema>;
