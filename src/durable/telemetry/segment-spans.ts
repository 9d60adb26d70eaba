// The spans of a run's segments (pure): `invoke_agent` from a segment's start to its stop (a wait
// for a person, the end, a failure), a child of the caller's span when the run joined its trace,
// linked to the span that made the run when it is a child run; and `wait person` from the stop
// that asked to the answer (or the cancel) that ended the wait.
import type { ApiError } from "../../api/types";
import type { ChatMessage } from "../../loop/types";
import { attributes, nanos, SPAN_KIND_INTERNAL, STATUS_ERROR, type OtlpSpan } from "./otlp";
import { personWaitKey, segmentSpanKey, spanIdOf } from "./span-ids";
import type { SegmentScope } from "./step-spans";
import type { RunTrace } from "./trace-store";

export type SegmentStop = {
  startedAt: number;
  endedAt: number;
  status: string;
  stoppedBy: string;
  /** What the segment spent. */
  costUsd: number;
  error?: ApiError;
  /** The history the segment started from: written only when capture is on. */
  messages?: readonly ChatMessage[];
};

export function segmentSpan(scope: SegmentScope, trace: RunTrace, stop: SegmentStop): OtlpSpan {
  const span: OtlpSpan = {
    traceId: scope.traceId,
    spanId: spanIdOf(scope.traceId, scope.runId, segmentSpanKey(scope.segment, scope.attempt)),
    name: "invoke_agent",
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(stop.startedAt),
    endTimeUnixNano: nanos(Math.max(stop.endedAt, stop.startedAt)),
    attributes: attributes({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": scope.runId,
      "gen_ai.conversation.id": scope.runId,
      "gen_ai.provider.name": scope.provider,
      "gen_ai.request.model": scope.model,
      "ratchet.segment": scope.segment,
      "ratchet.status": stop.status,
      "ratchet.stopped_by": stop.stoppedBy,
      "ratchet.cost_usd": stop.costUsd,
      "error.type": stop.error?.code,
      "gen_ai.input.messages": scope.capture && stop.messages !== undefined ? JSON.stringify(stop.messages) : undefined,
    }),
  };
  if (trace.parentSpanId !== undefined) span.parentSpanId = trace.parentSpanId;
  if (trace.link !== undefined) span.links = [{ traceId: trace.link.traceId, spanId: trace.link.spanId, attributes: attributes({ "ratchet.link": "parent-run" }) }];
  if (stop.error !== undefined) span.status = scope.capture ? { code: STATUS_ERROR, message: stop.error.message } : { code: STATUS_ERROR };
  return span;
}

export type PersonWait = { startedAt: number; endedAt: number; reason: string; callId: string; outcome: "answered" | "cancelled" };

/** The wait for a person after segment `scope.segment` stopped to ask: a child of that segment's span. */
export function personWaitSpan(scope: SegmentScope, wait: PersonWait): OtlpSpan {
  return {
    traceId: scope.traceId,
    spanId: spanIdOf(scope.traceId, scope.runId, personWaitKey(scope.segment)),
    parentSpanId: spanIdOf(scope.traceId, scope.runId, segmentSpanKey(scope.segment, scope.attempt)),
    name: "wait person",
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(wait.startedAt),
    endTimeUnixNano: nanos(Math.max(wait.endedAt, wait.startedAt)),
    attributes: attributes({
      "gen_ai.conversation.id": scope.runId,
      "ratchet.wait.kind": "person",
      "ratchet.wait.reason": wait.reason,
      "ratchet.wait.outcome": wait.outcome,
      "gen_ai.tool.call.id": wait.callId,
    }),
  };
}
