// Writes a run's spans to its outbox (channel `otel`), inside the transaction that commits what
// they tell: a segment's stop, the end of a wait. A step's span is written by the step's own
// statement as a seed (span-seed.ts), made into its span when a batch is sent. Nothing is written while the export is
// off (no OTEL_EXPORTER_OTLP_ENDPOINT). A step is committed once, so its spans are written once;
// the outbox sends them at least once, with the same bytes each time.
import { redactBody } from "../../api/redaction/redact-body";
import { toolNameOf } from "../../api/schemas/tools/tool-schemas";
import { otelOf } from "../../config/otel-settings";
import type { EngineContext } from "../engine/engine-context";
import { insertOutbox } from "../outbox/outbox-store";
import { readRun, type RunRow } from "../run/store/run-store";
import type { SeedRun } from "./span-seed";
import type { OtlpSpan } from "./otlp";
import { personWaitSpan, segmentSpan, type PersonWait, type SegmentStop } from "./segment-spans";
import type { SegmentScope } from "./step-spans";
import { readTrace, segmentTimes } from "./trace-store";

function writeSpans(engine: EngineContext, spans: readonly OtlpSpan[]): void {
  const now = engine.now();
  for (const span of spans) insertOutbox(engine.ctx.storage.sql, { channel: "otel", eventId: span.spanId, type: "span", version: 0, body: JSON.stringify(span) }, now);
}

/** `function` for tools the run itself runs, `extension` for those behind a URL. Spans leave the service: what they take of the body, they take from its redacted form. */
function toolTypeOf(body: RunRow["body"]): (name: string) => string {
  const extensions = new Set((redactBody(body).tools ?? []).filter((ref) => typeof ref !== "string" && ref.type === "http").map(toolNameOf));
  return (name) => (extensions.has(name) ? "extension" : "function");
}

/** What the spans of `run`'s segment `segment` share, or undefined while the export is off. */
export function segmentScope(engine: EngineContext, run: Pick<RunRow, "id" | "provider" | "model" | "body">, segment: number): SegmentScope | undefined {
  const otel = otelOf(engine.env);
  if (otel === undefined) return undefined;
  const { sql } = engine.ctx.storage;
  return {
    traceId: readTrace(sql, run.id).traceId,
    runId: run.id,
    provider: run.provider,
    model: run.model,
    segment,
    attempt: segmentTimes(sql, segment).attempt,
    capture: otel.capture,
    toolType: toolTypeOf(run.body),
  };
}

/** What a batch's step seeds take from the run when their spans are made (span-seed.ts); undefined when the run is gone. */
export function seedRunOf(sql: SqlStorage): SeedRun | undefined {
  const run = readRun(sql);
  if (run === undefined) return undefined;
  return { traceId: readTrace(sql, run.id).traceId, runId: run.id, provider: run.provider, model: run.model, toolType: toolTypeOf(run.body) };
}

/** In the stop's transaction, before the segment's end is marked: its invoke_agent span. */
export function writeSegmentSpan(engine: EngineContext, scope: SegmentScope | undefined, stop: Omit<SegmentStop, "startedAt">): void {
  if (scope === undefined) return;
  const { sql } = engine.ctx.storage;
  const startedAt = segmentTimes(sql, scope.segment).startedAt ?? stop.endedAt;
  writeSpans(engine, [segmentSpan(scope, readTrace(sql, scope.runId), { ...stop, startedAt })]);
}

/** In the transaction that ends a wait for a person (an answer, a cancel): the wait since the segment stopped. */
export function writePersonWait(engine: EngineContext, scope: SegmentScope | undefined, wait: Omit<PersonWait, "startedAt">): void {
  if (scope === undefined) return;
  const startedAt = segmentTimes(engine.ctx.storage.sql, scope.segment).endedAt ?? wait.endedAt;
  writeSpans(engine, [personWaitSpan(scope, { ...wait, startedAt })]);
}
