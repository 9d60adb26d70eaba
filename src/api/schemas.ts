// The zod schemas of the public API (docs/api.md). They validate every body and WebSocket frame at
// the edge and, through @hono/zod-openapi, produce the OpenAPI document, so the contract is written
// down once. The types they infer are checked against ./types.ts at the bottom. Every object a
// client sends is strict: an unknown field (a typo such as `maxStep`, or a field of a newer API) is
// refused with a 400 that names it, instead of being silently ignored.
import { z } from "@hono/zod-openapi";
import { httpUrlSchema } from "./http-url";
import { scriptSchema } from "../providers/scripted/scripted";
import { laterDuplicates } from "../lib/duplicates";
import { ASYNC_TIMEOUT_DEFAULT_SECONDS, ASYNC_TIMEOUT_MAX_SECONDS } from "./async-calls";
import { IMAGE_MEDIA_TYPES } from "./images";
import { mcpServersSchema } from "./mcp-schemas";
import { outputSchema } from "./output-schemas";
import { batchActionSchema, batchResultSchemaOf, clientToolsetRefSchema, providerToolRefSchema } from "./toolset-schemas";
import type * as Loop from "../loop/types";
import type * as Api from "./types";

/** One problem with a request, as the API reports it: `path` is dotted ("messages.0.content"). */
export type Issue = { path: string; message: string };

/** The error of every refusal; `issues` lists what was wrong with a body or frame. */
export type ErrorDetail = Api.ApiError;

// ---------------------------------------------------------------------------------------------
// Content and messages

const textPartSchema = z
  .strictObject({
    type: z.literal("text"),
    text: z.string(),
    cache: z.literal(true).optional().openapi({ description: "Mark a prompt-cache breakpoint after this part." }),
  })
  .openapi("TextPart");

/**
 * An image as a client sends it: inline bytes (`data`, base64) or a reference to bytes stored
 * before (`hash`). With `data`, `hash` may be left out and is then computed by the server.
 */
const imagePartInputSchema = z
  .strictObject({
    type: z.literal("image"),
    mimeType: z.enum(IMAGE_MEDIA_TYPES).openapi({ description: "JPEG, PNG, GIF or WebP; the bytes must be of this type." }),
    hash: z.string().min(1).optional().openapi({ description: "SHA-256 (hex) of the bytes." }),
    path: z.string().optional(),
    data: z.string().optional().openapi({ description: "The bytes, base64; on input only." }),
  })
  .refine((part) => part.hash !== undefined || part.data !== undefined, {
    message: "An image needs `data` (base64 bytes) or the `hash` of stored bytes.",
    path: ["hash"],
  })
  .openapi("ImagePartInput");

/** An image as the service stores and answers it: always by hash, never inline. */
const imagePartSchema = z
  .object({ type: z.literal("image"), mimeType: z.string(), hash: z.string(), path: z.string().optional() })
  .openapi("ImagePart");

export const contentPartInputSchema = z.union([textPartSchema, imagePartInputSchema]);
export const contentPartSchema = z.union([textPartSchema, imagePartSchema]).openapi("ContentPart");

export const contentInputSchema = z.union([z.string(), z.array(contentPartInputSchema)]).openapi("ContentInput");
export const contentSchema = z.union([z.string(), z.array(contentPartSchema)]).openapi("Content");

export const toolCallSchema = z
  .strictObject({
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.unknown(),
    toolset: z.string().min(1).optional().openapi({ description: "For an action of a provider-native toolset: the toolset (`name` is the action)." }),
  })
  .openapi("ToolCall");

function chatMessageSchemaOf<C extends z.ZodType>(content: C) {
  return z.discriminatedUnion("role", [
    z.strictObject({ role: z.literal("user"), content }),
    z.strictObject({
      role: z.literal("assistant"),
      content,
      toolCalls: z.array(toolCallSchema).optional(),
      // Kept so that GET …/messages round-trips into a new run (thinking blocks with signatures).
      providerBlocks: z.array(z.unknown()).optional(),
    }),
    z.strictObject({ role: z.literal("tool"), toolCallId: z.string().min(1), content, isError: z.boolean().optional() }),
  ]);
}

export const chatMessageInputSchema = chatMessageSchemaOf(contentInputSchema).openapi("ChatMessageInput");
export const chatMessageSchema = chatMessageSchemaOf(contentSchema).openapi("ChatMessage");

// ---------------------------------------------------------------------------------------------
// Tools

export const jsonObjectSchema = z.record(z.string(), z.unknown());

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

export const toolRefSchema = z
  .union([
    z.string().min(1).openapi({ description: "A built-in tool by name: ask, calculator, current_time." }),
    z.discriminatedUnion("type", [httpToolRefSchema, clientToolRefSchema, clientToolsetRefSchema, providerToolRefSchema]),
  ])
  .openapi("ToolRef");

export function toolNameOf(ref: Api.ToolRef): string {
  if (typeof ref === "string") return ref;
  return ref.type === "provider" ? ref.spec.name : ref.name;
}

// ---------------------------------------------------------------------------------------------
// POST /v1/runs

const METADATA_MAX_BYTES = 16 * 1024;

function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

/** A subject: an app's user id, 1–128 printable ASCII characters. */
export const SUBJECT_PATTERN = /^[\x20-\x7e]{1,128}$/;
export const subjectSchema = z.string().regex(SUBJECT_PATTERN, { message: "Must be 1–128 printable ASCII characters." });

const budgetSchema = z
  .strictObject({
    usd: z.number().gt(0),
    finishAt: z.number().gt(0).lte(1).optional(),
    spentUsd: z.number().gte(0).optional(),
  })
  .openapi("Budget");

/** The type prefix of the blocks the service records in a history (src/loop/container.ts, src/loop/context-view.ts). */
const RECORD_PREFIX = "ratchet.";

export const createRunBodySchema = z
  .strictObject({
    system: z.string().optional(),
    messages: z.array(chatMessageInputSchema).min(1, { message: "At least one message is needed." }),
    tools: z.array(toolRefSchema).optional(),
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
    output: outputSchema.optional().openapi({ description: "Typed final output: a finish tool (default final_answer) whose input, checked against `schema`, is the run's `final`." }),
    maxTokens: z.number().int().gte(1).optional(),
    reasoning: z
      .union([z.boolean(), z.null(), z.literal("adaptive"), z.strictObject({ budgetTokens: z.number().int().gte(1) })])
      .optional()
      .openapi({ description: 'Extended thinking: true (a 4,096-token budget), { budgetTokens }, or "adaptive".' }),
    script: scriptSchema.optional().openapi({ description: 'For provider "scripted" only: the turns it plays.' }),
    metadata: jsonObjectSchema
      .refine((value) => jsonBytes(value) <= METADATA_MAX_BYTES, { message: "Metadata must be at most 16 KiB as JSON." })
      .optional(),
    subject: subjectSchema.optional().openapi({
      description: "Deployment token only: the subject (an app's user id) whose inbox lists the run. A user token's runs always get its own subject.",
    }),
    webhook: z
      .strictObject({ url: httpUrlSchema.openapi({ description: "Its host must be on HTTP_TOOL_ALLOW (https, or http for an http:// entry)." }) })
      .optional()
      .openapi({ description: "Deployment token only: this run's own webhook receiver, besides the deployment's WEBHOOK_URL." }),
  })
  .superRefine((body, context) => {
    const names = (body.tools ?? []).map(toolNameOf);
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
      const ref = at === undefined ? undefined : body.tools?.[at];
      if (typeof ref === "object" && (ref.type === "client-toolset" || ref.type === "provider")) {
        context.addIssue({ code: "custom", path: ["finishTools", index], message: `${name} is a ${ref.type === "provider" ? "provider tool" : "client toolset"}: a finish tool is one the run calls.` });
      }
    });
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
    if (body.script !== undefined && body.provider !== undefined && body.provider !== "scripted") {
      context.addIssue({ code: "custom", path: ["script"], message: 'A script is for provider "scripted" only.' });
    }
  })
  .openapi("CreateRunBody");

export type CreateRunInput = z.infer<typeof createRunBodySchema>;

// ---------------------------------------------------------------------------------------------
// Answers and continuing

export const answerBodySchema = z
  .strictObject({
    callId: z.string().min(1),
    content: contentInputSchema.optional().openapi({ description: "For an ask or a client tool." }),
    approved: z.boolean().optional().openapi({ description: "For an approval." }),
    isError: z.boolean().optional(),
    results: z
      .array(batchResultSchemaOf(contentInputSchema))
      .min(1)
      .optional()
      .openapi({ description: "For a client toolset's batch (callId is the batch's): every action's result, in any order; after a failed one (isError) leave the later ones out." }),
  })
  .openapi("AnswerBody");

export type AnswerInput = z.infer<typeof answerBodySchema>;

export const continueBodySchema = z
  .strictObject({
    content: contentInputSchema,
    maxSteps: z
      .number()
      .int()
      .gte(1)
      .optional()
      .openapi({ description: "Model calls this continuation may make (default: the run's own maxSteps; at most MAX_STEPS_LIMIT)." }),
  })
  .openapi("ContinueBody");

export const ticketSchema = z
  .object({
    ticket: z.string().openapi({ description: "Send as ?ticket= to the events endpoint, once, before expiresAt." }),
    expiresAt: z.string(),
  })
  .openapi("Ticket");

export const runTokenSchema = z.object({ token: z.string().openapi({ description: "The new run token, shown this once." }) }).openapi("RunToken");

// ---------------------------------------------------------------------------------------------
// Runs as the API shows them

export const runStatusSchema = z.enum(["running", "waiting", "finished", "failed", "cancelled"]);
export const stoppedBySchema = z.enum(["done", "finish-tool", "asked", "budget", "steps", "cancel", "refusal", "error"]);
const stopReasonSchema = z
  .enum(["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence", "compaction", "model_context_window_exceeded"])
  .openapi({ description: "Why a model call stopped." });
export const waitingKindSchema = z.enum(["ask", "approval", "client-tool", "client-toolset"]);
const apiErrorSchema = z.object({ code: z.string(), message: z.string(), retryable: z.boolean().optional() });

export const webhookDeliverySchema = z
  .object({
    id: z.string().openapi({ description: "The webhook-id header: the same on every attempt." }),
    type: z.enum(["run.waiting", "run.finished", "run.failed", "run.cancelled"]),
    target: z.enum(["deployment", "run"]).openapi({ description: "WEBHOOK_URL, or the run's own webhook.url." }),
    state: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    lastStatus: z.number().int().optional().openapi({ description: "HTTP status of the last attempt; 0 when no answer arrived." }),
    lastError: z.string().optional(),
    nextAttemptAt: z.string().optional(),
  })
  .openapi("WebhookDelivery");
const pendingCallSchema = z
  .object({
    callId: z.string(),
    name: z.string(),
    step: z.number().int(),
    startedAt: z.string(),
    deadline: z.string().openapi({ description: "When the run stops waiting: the model then gets an error result." }),
  })
  .openapi("PendingCall");

export const runViewSchema = z
  .object({
    id: z.string(),
    status: runStatusSchema,
    stoppedBy: stoppedBySchema.optional(),
    model: z.string(),
    provider: z.string(),
    steps: z.number().int().openapi({ description: "Model calls so far." }),
    maxSteps: z.number().int().openapi({ description: "Model calls the run may make in all (raised by a continue)." }),
    spentUsd: z.number(),
    budgetUsd: z.number().openapi({ description: "The run's budget." }),
    finalText: z.string().optional(),
    final: z.unknown().optional(),
    stopReason: stopReasonSchema.optional().openapi({ description: "Why the newest model call stopped." }),
    waiting: z
      .object({
        kind: waitingKindSchema,
        callId: z.string(),
        name: z.string(),
        input: z.unknown(),
        batch: z.array(batchActionSchema).optional().openapi({ description: "For a client toolset: every action of the batch, in call order (callId, name, input are the first's call, the toolset and its input)." }),
      })
      .optional(),
    pending: z
      .array(pendingCallSchema)
      .optional()
      .openapi({ description: "Async HTTP tool calls the run is waiting on; absent when there are none." }),
    error: apiErrorSchema.optional(),
    lastSeq: z.number().int().openapi({ description: "Seq of the newest stored event." }),
    createdAt: z.string(),
    updatedAt: z.string(),
    metadata: jsonObjectSchema.optional(),
    subject: z.string().optional().openapi({ description: "The subject whose inbox lists the run." }),
    webhooks: z.array(webhookDeliverySchema).optional().openapi({ description: "The newest webhook deliveries (at most 20), newest first." }),
    scheduleId: z.string().optional().openapi({ description: "The schedule whose fire made the run." }),
    firedAt: z.string().optional().openapi({ description: "The fire time the run stands for (a schedule's runs only)." }),
  })
  .openapi("RunView");

export const createdRunSchema = z
  .object({ run: runViewSchema, token: z.string().openapi({ description: "The run token, shown this once." }) })
  .openapi("CreatedRun");

export const messagesSchema = z.object({ messages: z.array(chatMessageSchema) }).openapi("Messages");

// ---------------------------------------------------------------------------------------------
// Events (sent over WebSocket and SSE)

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedReadTokens: z.number(),
  cachedWriteTokens: z.number(),
  serverToolUse: z
    .object({ webSearchRequests: z.number(), webFetchRequests: z.number() })
    .optional()
    .openapi({ description: "Requests the provider's own tools made in this call (when there were any)." }),
});

const toolCallViewSchema = z.object({ id: z.string(), name: z.string(), input: z.unknown(), toolset: z.string().optional() });

export const runEventSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("run-started"), run: runViewSchema }),
    z.object({ type: z.literal("step-start"), step: z.number(), last: z.boolean() }),
    z.object({ type: z.literal("text"), step: z.number(), delta: z.string() }),
    z.object({ type: z.literal("text-reset"), step: z.number() }),
    z.object({
      type: z.literal("model"),
      step: z.number(),
      text: z.string(),
      toolCalls: z.array(toolCallViewSchema),
      usage: usageSchema,
      costUsd: z.number(),
      spentUsd: z.number(),
      stopReason: stopReasonSchema,
      providerToolCalls: z.array(toolCallViewSchema).optional().openapi({ description: "Calls of the provider's own tools in this answer (web search, code execution): run by the provider." }),
    }),
    z.object({
      type: z.literal("compaction"),
      step: z.number(),
      mode: z.enum(["native", "summary"]),
      reason: z.enum(["threshold", "overflow", "request"]).openapi({ description: "threshold: a prompt passed atTokens; overflow: a prompt was refused as too long; request: POST /v1/runs/{id}/compact asked for it." }),
      tokensBefore: z.number(),
      tokensAfter: z.number().openapi({ description: "An estimate until the next model call reports." }),
    }),
    z.object({ type: z.literal("tool-call"), step: z.number(), callId: z.string(), name: z.string(), input: z.unknown(), toolset: z.string().optional() }),
    z.object({ type: z.literal("tool-started"), step: z.number(), callId: z.string(), name: z.string(), deadline: z.string() }),
    z.object({
      type: z.literal("tool-result"),
      step: z.number(),
      callId: z.string(),
      name: z.string(),
      ok: z.boolean(),
      summary: z.string(),
      error: z.string().optional(),
      costUsd: z.number(),
      toolset: z.string().optional().openapi({ description: "The call's client toolset, for an action of one." }),
      notRun: z.literal(true).optional().openapi({ description: "The call was never run (closed when the run stopped, or a toolset action after a failed one): summary says why." }),
    }),
    z.object({
      type: z.literal("step"),
      step: z.number(),
      spentUsd: z.number().openapi({ description: "The run's spend after this model call and its tool calls, tool costs included." }),
    }),
    z.object({
      type: z.literal("waiting"),
      kind: waitingKindSchema,
      callId: z.string(),
      name: z.string(),
      input: z.unknown(),
      batch: z.array(batchActionSchema).optional(),
    }),
    z.object({
      type: z.literal("answered"),
      callId: z.string(),
      results: z.array(z.object({ callId: z.string(), ok: z.boolean() })).optional().openapi({ description: "For a toolset batch: the actions the client answered, in batch order, and whether each succeeded." }),
    }),
    z.object({
      type: z.literal("mcp-tools"),
      server: z.string(),
      tools: z.array(z.string()).openapi({ description: "The tools offered to the model, as <server>__<tool>." }),
      refused: z.array(z.object({ tool: z.string(), reason: z.string() })).openapi({ description: "The server's tools left out (by its own names), each with why." }),
      incomplete: z
        .literal(true)
        .optional()
        .openapi({ description: "The listing stopped at its cap (MCP_TOOLS_LIMIT tools, or 1 MiB of their descriptions) before the server's last tool: the tools past it are not offered." }),
    }),
    z.object({
      type: z.literal("end"),
      status: runStatusSchema,
      stoppedBy: stoppedBySchema,
      finalText: z.string().optional(),
      final: z.unknown().optional(),
      spentUsd: z.number(),
      steps: z.number(),
      shortAnswer: z
        .literal(true)
        .optional()
        .openapi({ description: "The final answer after tool work is still shorter than minAnswerChars after the one more call it got." }),
      error: apiErrorSchema.optional(),
    }),
  ])
  .openapi("RunEvent");

export const storedEventSchema = z
  .intersection(runEventSchema, z.object({ seq: z.number().int().gte(1), at: z.string() }))
  .openapi("StoredEvent");

// ---------------------------------------------------------------------------------------------
// Results of async HTTP tools (POST /v1/runs/{id}/calls/{callKey}/result, by the tool server)

/** Content as a tool answers it: text, or images the deployment stores already (by hash). */
const toolContentSchema = z.union([
  z.string(),
  z.array(
    z.union([
      z.strictObject({ type: z.literal("text"), text: z.string() }),
      z.strictObject({ type: z.literal("image"), mimeType: z.string().min(1), hash: z.string().min(1), path: z.string().optional() }),
    ]),
  ),
]);

export const callResultBodySchema = z
  .strictObject({
    content: toolContentSchema.openapi({ description: "What the model sees: text, or a list of text and image parts." }),
    isError: z.boolean().optional().openapi({ description: "The job failed: the model sees `content` as the error." }),
    costUsd: z.number().nonnegative().optional().openapi({ description: "What the job cost; it counts towards the run's budget." }),
  })
  .openapi("CallResult");

export type CallResultInput = z.infer<typeof callResultBodySchema>;

export const callResultAcceptedSchema = z
  .object({ callId: z.string(), answeredAt: z.string().openapi({ description: "When the first result arrived." }) })
  .openapi("CallResultAccepted");

// ---------------------------------------------------------------------------------------------
// WebSocket frames a client may send

export const clientFrameSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("answer"),
    callId: z.string().min(1),
    content: contentInputSchema.optional(),
    approved: z.boolean().optional(),
    isError: z.boolean().optional(),
    results: z.array(batchResultSchemaOf(contentInputSchema)).min(1).optional(),
  }),
  z.strictObject({ type: z.literal("cancel") }),
  z.strictObject({ type: z.literal("ping") }),
]);

export type ClientFrame = z.infer<typeof clientFrameSchema>;

export type ParsedFrame = { ok: true; frame: ClientFrame } | { ok: false; error: ErrorDetail };

/** A text frame from a client: a known frame, or the error to send back (the socket stays open). */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: { code: "invalid-request", message: "The frame is not JSON." } };
  }
  const parsed = clientFrameSchema.safeParse(value);
  if (parsed.success) return { ok: true, frame: parsed.data };
  return { ok: false, error: { code: "invalid-request", message: "Invalid frame.", issues: issuesOf(parsed.error) } };
}

// ---------------------------------------------------------------------------------------------
// Errors

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");

type ZodIssue = z.core.$ZodIssue;

function deepestPath(issues: readonly ZodIssue[]): number {
  return Math.max(-1, ...issues.map((issue) => issue.path.length));
}

/**
 * zod's issues as the API reports them. A failed union reports the branch that got furthest
 * (a content array with one bad part says which part and why, not "Invalid input").
 */
export function issuesOf(error: z.ZodError): Issue[] {
  return flatten(error.issues, []);
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join(".");

function flatten(issues: readonly ZodIssue[], prefix: PropertyKey[]): Issue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (deepestPath(b) > deepestPath(a) ? b : a));
      return flatten(best, path);
    }
    // One issue per unknown field, at the field itself.
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ path: dotted([...path, key]), message: "Unknown field." }));
    return [{ path: dotted(path), message: issue.message }];
  });
}

// ---------------------------------------------------------------------------------------------
// Compile-time checks: what the schemas let through is what ./types.ts describes.

type Assignable<From, To> = [From] extends [To] ? true : false;
type Check<T extends true> = T;

export type SchemaChecks = [
  Check<Assignable<z.infer<typeof contentSchema>, Loop.Content>>,
  Check<Assignable<z.infer<typeof chatMessageSchema>, Loop.ChatMessage>>,
  // Loop.ChatMessage → input holds for messages whose images are JPEG, PNG, GIF or WebP (the only ones a run takes).
  Check<Assignable<Omit<Loop.UserMessage, "content"> & { content: string }, z.input<typeof chatMessageInputSchema>>>,
  Check<Assignable<z.infer<typeof toolRefSchema>, Api.ToolRef>>,
  Check<Assignable<Api.ToolRef, z.infer<typeof toolRefSchema>>>,
  Check<Assignable<z.infer<typeof runViewSchema>, Api.RunView>>,
  Check<Assignable<Api.RunView, z.infer<typeof runViewSchema>>>,
  Check<Assignable<Omit<CreateRunInput, "messages">, Omit<Api.CreateRunBody, "messages">>>,
  Check<Assignable<Omit<AnswerInput, "content" | "results">, Omit<Api.AnswerBody, "content" | "results">>>,
  Check<Assignable<z.infer<typeof runEventSchema>, Api.RunEvent>>,
  Check<Assignable<Api.RunEvent, z.infer<typeof runEventSchema>>>,
  Check<Assignable<z.infer<typeof storedEventSchema>, Api.StoredEvent>>,
  Check<Assignable<z.infer<typeof errorBodySchema>["error"], ErrorDetail>>,
  Check<Assignable<CallResultInput, Api.CallResultBody>>,
  Check<Assignable<Api.CallResultBody, CallResultInput>>,
  Check<Assignable<z.infer<typeof callResultAcceptedSchema>, Api.CallResultAccepted>>,
];
