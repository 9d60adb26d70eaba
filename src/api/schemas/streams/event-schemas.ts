// A run's events, as sent over WebSocket and SSE and stored with their `seq`.
import { z } from "@hono/zod-openapi";
import { apiErrorSchema, guardrailTripSchema, runStatusSchema, runViewSchema, stopReasonSchema, stoppedBySchema, waitingGuardrailSchema, waitingKindSchema } from "../runs/run-view-schemas";
import { batchActionSchema } from "../tools/toolset-schemas";
import { contentSchema } from "../runs/content-schemas";
import { messageModeSchema } from "../person/answer-schemas";

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
    z
      .object({ type: z.literal("elicitation-failed"), callId: z.string(), message: z.string() })
      .openapi({ description: "Live only: an MCP host could not show the question the run waits on (its elicitation failed, message says how); the run still waits for an answer." }),
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
    z.object({
      type: z.literal("tool-call"),
      step: z.number(),
      callId: z.string(),
      name: z.string(),
      input: z.unknown(),
      toolset: z.string().optional(),
      guardrailsPassed: z
        .array(z.object({ name: z.string(), reason: z.string() }))
        .optional()
        .openapi({ description: "The data-kind tool checks (regex, deny, json-schema, size) this call passed: each a verdict with stage tool, action pass, cost 0, carried here instead of a guardrail event of its own (docs/guardrails.md)." }),
    }),
    z.object({ type: z.literal("child-started"), callId: z.string(), childId: z.string() }).openapi({ description: "An agent tool call started its child run." }),
    z.object({ type: z.literal("child-ended"), callId: z.string(), childId: z.string(), status: runStatusSchema, spentUsd: z.number() }),
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
      type: z.literal("user-message"),
      step: z.number().openapi({ description: "The model call the message went in before (its history holds it from there)." }),
      messageId: z.string(),
      mode: messageModeSchema,
      content: contentSchema,
    }),
    z
      .object({
        type: z.literal("loop-guard"),
        step: z.number(),
        verdict: z.enum(["warn", "ask", "stop"]),
        trips: z.array(
          z.object({
            detector: z.enum(["sameCall", "sameText", "alternation", "noProgress"]),
            count: z.number(),
            threshold: z.number(),
            policy: z.enum(["warn", "ask", "stop"]),
          }),
        ),
        message: z.string().openapi({ description: "What the model (warn) or the person (ask) was told, or why the run stopped." }),
      })
      .openapi({ description: "A loop guard tripped on the turn of model call `step` (docs/guardrails.md)." }),
    z
      .object({
        type: z.literal("guardrail"),
        step: z.number().openapi({ description: "The model call the check follows (input checks: the one before the question; 0 for a run's first)." }),
        name: z.string(),
        stage: z.enum(["input", "tool", "output"]),
        pass: z.boolean(),
        action: z.enum(["pass", "stop", "reject", "ask", "retry"]).openapi({ description: "What the verdict did: pass, or the check's onFail (an output check past its retries: stop)." }),
        reason: z.string(),
        costUsd: z.number().openapi({ description: "What the check cost (a model-graded check's call), counted in the run's budget." }),
        callId: z.string().optional().openapi({ description: "Tool checks: the call checked." }),
        tool: z.string().optional().openapi({ description: "Tool checks: the call's tool." }),
      })
      .openapi({ description: "A guardrail's verdict (docs/guardrails.md), journaled with its check." }),
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
      guardrail: waitingGuardrailSchema.optional(),
    }),
    z.object({
      type: z.literal("answered"),
      callId: z.string(),
      results: z.array(z.object({ callId: z.string(), ok: z.boolean() })).optional().openapi({ description: "For a toolset batch: the actions the client answered, in batch order, and whether each succeeded." }),
      messageId: z.string().optional().openapi({ description: "The answer was a message the person typed: its id (the answer's messageId)." }),
      content: contentSchema.optional().openapi({ description: "A loop guard's ask: the answer as given (it is no call's result, so the history does not hold it)." }),
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
      guardrail: guardrailTripSchema.optional(),
      error: apiErrorSchema.optional(),
    }),
  ])
  .openapi("RunEvent");

export const storedEventSchema = z
  .intersection(runEventSchema, z.object({ seq: z.number().int().gte(1), at: z.string() }))
  .openapi("StoredEvent");
