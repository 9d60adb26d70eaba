// Runs as the API shows them: a run's view, a created run with its token, its messages, and the
// tickets and tokens handed out for it.
import { z } from "@hono/zod-openapi";
import { forkedFromSchema } from "./fork-schemas";
import { chatMessageSchema } from "./content-schemas";
import { jsonObjectSchema } from "../../rules/json-object";
import { batchActionSchema } from "../tools/toolset-schemas";

export const agentOfRunSchema = z.object({ name: z.string(), version: z.number().int() }).openapi("AgentOfRun");

export const runStatusSchema = z.enum(["running", "waiting", "finished", "failed", "cancelled"]);
export const stoppedBySchema = z.enum(["done", "finish-tool", "asked", "budget", "steps", "cancel", "refusal", "loop", "guardrail", "error"]);
export const stopReasonSchema = z
  .enum(["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence", "compaction", "model_context_window_exceeded"])
  .openapi({ description: "Why a model call stopped." });
export const waitingKindSchema = z.enum(["ask", "approval", "client-tool", "client-toolset"]);
/** An approval a tool check asked for: the check and why the call failed it. */
export const waitingGuardrailSchema = z.object({ name: z.string(), reason: z.string() }).openapi({ description: 'An approval a tool check (onFail "ask") asked for: the check and why the call failed it (docs/guardrails.md).' });

export const guardrailTripSchema = z
  .object({ name: z.string(), stage: z.enum(["input", "tool", "output"]), reason: z.string() })
  .openapi("GuardrailTrip", { description: 'stoppedBy "guardrail": the check that ended the run, its stage and why.' });

export const apiErrorSchema = z.object({ code: z.string(), message: z.string(), retryable: z.boolean().optional() });

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

const childRunSchema = z
  .object({ id: z.string(), callId: z.string().openapi({ description: "The agent tool call that started it." }), status: runStatusSchema, spentUsd: z.number() })
  .openapi("ChildRun");

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
        guardrail: waitingGuardrailSchema.optional(),
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
    tags: z.array(z.string()).optional().openapi({ description: "The run's tags, as given when it was made." }),
    subject: z.string().optional().openapi({ description: "The subject whose inbox lists the run." }),
    webhooks: z.array(webhookDeliverySchema).optional().openapi({ description: "The newest webhook deliveries (at most 20), newest first." }),
    scheduleId: z.string().optional().openapi({ description: "The schedule whose fire made the run." }),
    firedAt: z.string().optional().openapi({ description: "The fire time the run stands for (a schedule's runs only)." }),
    agent: agentOfRunSchema.optional().openapi({ description: "The stored agent, and its version, the run was made from (docs/agents.md)." }),
    parentId: z.string().optional().openapi({ description: "A child run: the run whose agent tool call started it." }),
    children: z.array(childRunSchema).optional().openapi({ description: "The child runs this run started, in start order; absent when there are none." }),
    forkedFrom: forkedFromSchema.optional().openapi({ description: "A fork's source run and the model step its prefix ends with." }),
    queuedMessages: z.number().int().positive().optional().openapi({ description: "Messages sent while the run works (POST …/messages) that wait to go into its history, before its next model call; absent when none wait." }),
    inheritedUsd: z.number().optional().openapi({ description: "A fork's prefix's cost, spent by its source: not charged to the fork's budget." }),
    experiment: z
      .object({ id: z.string(), case: z.number().int(), mode: z.enum(["replay", "live", "replay-then-live"]) })
      .optional()
      .openapi({ description: "A case run of an experiment (docs/evals.md): the experiment, the case, and how its tool calls are answered." }),
    guardrail: guardrailTripSchema.optional(),
  })
  .openapi("RunView");

export const createdRunSchema = z
  .object({ run: runViewSchema, token: z.string().openapi({ description: "The run token, shown this once." }) })
  .openapi("CreatedRun");

export const messagesSchema = z.object({ messages: z.array(chatMessageSchema) }).openapi("Messages");

export const ticketSchema = z
  .object({
    ticket: z.string().openapi({ description: "Send as ?ticket= to the events endpoint, once, before expiresAt." }),
    expiresAt: z.string(),
  })
  .openapi("Ticket");

export const runTokenSchema = z.object({ token: z.string().openapi({ description: "The new run token, shown this once." }) }).openapi("RunToken");
