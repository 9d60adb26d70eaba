// The spans of one committed journal step, in the GenAI semantic conventions (pure): a model call
// is `chat {model}`, a tool call `execute_tool {name}` (an async tool's or agent call's start too),
// an async tool's wait `wait tool`, an agent call's wait for its child run `wait child`, a
// compaction `compaction` (a provider's own compaction is a child of its chat span), a guardrail's
// check `guardrail {name}` (its verdict as attributes; a failed check has status error; a pure
// check's, told before the step, goes with it, at its start, keyed by its own key). Each span's
// id comes from its step key, its parent is the segment's invoke_agent span.
// Message and tool content is written only when capture is on.
import type { CompactionEvent, GuardrailEvent, LoopGuardEvent, ModelEvent, StoredLoopEvent, ToolResultEvent } from "../../loop/types";
import { attributes, nanos, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, STATUS_ERROR, type AttributeValue, type OtlpSpan } from "./otlp";
import { segmentSpanKey, spanIdOf } from "./span-ids";

/** What every span of a run's segment shares. */
export type SegmentScope = {
  traceId: string;
  runId: string;
  provider: string;
  model: string;
  segment: number;
  /** The segment's attempt: 0, then one more for each retry of a failed run (its invoke_agent span is the steps' parent). */
  attempt: number;
  /** OTEL_CAPTURE_CONTENT=on: message and tool content go into spans. */
  capture: boolean;
  /** `function` for tools the run itself runs, `extension` for those behind a URL (HTTP, MCP). */
  toolType: (name: string) => string;
};

/** A step as its transaction commits it. `key` is without the segment; `call` is the tool call its work announced, if any. */
export type CommittedStep = {
  key: string;
  events: readonly StoredLoopEvent[];
  costUsd: number;
  startedAt: number;
  endedAt: number;
  call?: { name: string; callId: string; input: unknown };
  /** For an async tool's wait: when its start was sent; for an agent call's: when its child was started. */
  waitStartedAt?: number;
  /** For an agent call's wait: the child run it waited for. */
  childId?: string;
};

function span(scope: SegmentScope, key: string, name: string, kind: number, startedAt: number, endedAt: number, record: Record<string, AttributeValue | undefined>, parentKey = segmentSpanKey(scope.segment, scope.attempt)): OtlpSpan {
  return {
    traceId: scope.traceId,
    spanId: spanIdOf(scope.traceId, scope.runId, key),
    parentSpanId: spanIdOf(scope.traceId, scope.runId, parentKey),
    name,
    kind,
    startTimeUnixNano: nanos(startedAt),
    endTimeUnixNano: nanos(Math.max(endedAt, startedAt)),
    attributes: attributes({ "gen_ai.conversation.id": scope.runId, "ratchet.step_key": key, ...record }),
  };
}

function chatSpan(scope: SegmentScope, key: string, step: CommittedStep, event: ModelEvent): OtlpSpan {
  const { usage } = event;
  const output = scope.capture ? JSON.stringify([{ role: "assistant", parts: [...(event.text === "" ? [] : [{ type: "text", content: event.text }]), ...event.toolCalls.map((call) => ({ type: "tool_call", id: call.id, name: call.name, arguments: call.input }))], finish_reason: event.stopReason }]) : undefined;
  return span(scope, key, `chat ${scope.model}`, SPAN_KIND_CLIENT, step.startedAt, step.endedAt, {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": scope.provider,
    "gen_ai.request.model": scope.model,
    "gen_ai.response.model": scope.model,
    "gen_ai.usage.input_tokens": usage.inputTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cachedReadTokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cachedWriteTokens,
    "gen_ai.response.finish_reasons": [event.stopReason],
    "ratchet.cost_usd": event.costUsd,
    "ratchet.step": event.step,
    "gen_ai.output.messages": output,
  });
}

function compactionSpan(scope: SegmentScope, key: string, step: CommittedStep, event: CompactionEvent | undefined, parentKey?: string): OtlpSpan {
  return span(scope, key, "compaction", SPAN_KIND_INTERNAL, step.startedAt, step.endedAt, {
    "ratchet.compaction.mode": event?.mode ?? "summary",
    "ratchet.compaction.reason": event?.reason,
    "ratchet.compaction.tokens_before": event?.tokensBefore,
    "ratchet.compaction.tokens_after": event?.tokensAfter,
    "ratchet.cost_usd": parentKey === undefined ? step.costUsd : undefined,
  }, parentKey);
}

function toolSpan(scope: SegmentScope, key: string, step: CommittedStep, name: string, callId: string, result: ToolResultEvent | undefined): OtlpSpan {
  const failed = result !== undefined && !result.ok;
  const made = span(scope, key, `execute_tool ${name}`, SPAN_KIND_INTERNAL, step.startedAt, step.endedAt, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": name,
    "gen_ai.tool.call.id": callId,
    "gen_ai.tool.type": scope.toolType(name),
    "error.type": failed ? (result.notRun === true ? "not_run" : "tool_error") : undefined,
    "ratchet.cost_usd": step.costUsd,
    "gen_ai.tool.call.arguments": scope.capture && step.call !== undefined ? JSON.stringify(step.call.input ?? null) : undefined,
    "gen_ai.tool.call.result": scope.capture && result !== undefined ? result.summary : undefined,
  });
  if (failed) made.status = scope.capture ? { code: STATUS_ERROR, message: result.summary } : { code: STATUS_ERROR };
  return made;
}

function waitSpan(scope: SegmentScope, key: string, step: CommittedStep, result: ToolResultEvent | undefined): OtlpSpan {
  const name = result?.name ?? step.call?.name ?? "tool";
  const failed = result !== undefined && !result.ok;
  const waited = step.childId === undefined ? "tool" : "child";
  const made = span(scope, key, `wait ${waited}`, SPAN_KIND_INTERNAL, step.waitStartedAt ?? step.startedAt, step.endedAt, {
    "ratchet.wait.kind": waited,
    "ratchet.child_run_id": step.childId,
    "gen_ai.tool.name": name,
    "gen_ai.tool.call.id": result?.callId,
    "error.type": failed ? "tool_error" : undefined,
    "gen_ai.tool.call.result": scope.capture && result !== undefined ? result.summary : undefined,
  });
  if (failed) made.status = { code: STATUS_ERROR };
  return made;
}

/** A loop guard's verdict on a turn (docs/guardrails.md): its detectors, counts and what it did. */
function loopGuardSpan(scope: SegmentScope, key: string, step: CommittedStep, event: LoopGuardEvent): OtlpSpan {
  const made = span(scope, key, "loop_guard", SPAN_KIND_INTERNAL, step.startedAt, step.endedAt, {
    "ratchet.loop_guard.verdict": event.verdict,
    "ratchet.loop_guard.detectors": event.trips.map((trip) => trip.detector),
    "ratchet.loop_guard.counts": event.trips.map((trip) => `${trip.detector}=${trip.count}/${trip.threshold}`),
    "ratchet.step": event.step,
  });
  if (event.verdict === "stop") made.status = { code: STATUS_ERROR, message: "loop" };
  return made;
}

function guardrailSpan(scope: SegmentScope, key: string, step: CommittedStep, event: GuardrailEvent): OtlpSpan {
  const endedAt = event.inline === true ? step.startedAt : step.endedAt;
  const made = span(scope, key, `guardrail ${event.name}`, SPAN_KIND_INTERNAL, step.startedAt, endedAt, {
    "ratchet.guardrail.name": event.name,
    "ratchet.guardrail.stage": event.stage,
    "ratchet.guardrail.pass": event.pass,
    "ratchet.guardrail.action": event.action,
    "ratchet.guardrail.reason": scope.capture ? event.reason : undefined,
    "gen_ai.tool.call.id": event.callId,
    "gen_ai.tool.name": event.tool,
    "ratchet.cost_usd": event.costUsd,
  });
  if (!event.pass) made.status = { code: STATUS_ERROR };
  return made;
}

/** The spans of pure checks' verdicts told before `step` (no step of their own). */
function inlineVerdictSpans(scope: SegmentScope, step: CommittedStep): OtlpSpan[] {
  return step.events.filter((event): event is GuardrailEvent => event.type === "guardrail" && event.inline === true).map((event) => guardrailSpan(scope, `s${scope.segment}/${event.key}`, step, event));
}

/** The spans a committed step exports (none for steps that are neither a model nor a tool call nor a compaction: an MCP listing). */
export function stepSpans(scope: SegmentScope, step: CommittedStep): OtlpSpan[] {
  const inline = inlineVerdictSpans(scope, step);
  const own = ownSpans(scope, step);
  return inline.length === 0 ? own : [...inline, ...own];
}

function ownSpans(scope: SegmentScope, step: CommittedStep): OtlpSpan[] {
  const key = `s${scope.segment}/${step.key}`;
  const [kind, , callId] = step.key.split("/");
  const model = step.events.find((event): event is ModelEvent => event.type === "model");
  const compaction = step.events.find((event): event is CompactionEvent => event.type === "compaction");
  const result = step.events.find((event): event is ToolResultEvent => event.type === "tool-result");
  if (kind === "model" && model !== undefined) {
    const spans = [chatSpan(scope, key, step, model)];
    if (compaction !== undefined) spans.push(compactionSpan(scope, `${key}#compaction`, step, compaction, key));
    return spans;
  }
  if (kind === "compact") return [compactionSpan(scope, key, step, compaction)];
  if (kind === "tool" || kind === "reply" || kind === "start") {
    const name = result?.name ?? step.call?.name ?? "unknown";
    return [toolSpan(scope, key, step, name, result?.callId ?? step.call?.callId ?? callId ?? "", result)];
  }
  if (kind === "wait") return [waitSpan(scope, key, step, result)];
  const loop = step.events.find((event): event is LoopGuardEvent => event.type === "loop-guard");
  if (kind === "loop" && loop !== undefined) return [loopGuardSpan(scope, key, step, loop)];
  const guardrail = step.events.find((event): event is GuardrailEvent => event.type === "guardrail" && event.inline !== true);
  if (kind === "guardrail" && guardrail !== undefined) return [guardrailSpan(scope, key, step, guardrail)];
  return [];
}
