// W3C Trace Context (https://www.w3.org/TR/trace-context/): reading a `traceparent` header and
// writing one. Trace and span ids are lower-case hex: 32 and 16 digits, never all zeros.

/** A span of a trace: where a run's trace joins the caller's, or what a tool request carries. */
export type SpanContext = { traceId: string; spanId: string };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The caller's span from a `traceparent` header, or undefined when there is none or it is not
 * valid (the spec says to ignore it then and start a new trace). Version ff is invalid; a later
 * version than 00 is read by its first four fields, as the spec asks.
 */
export function parseTraceparent(header: string | null | undefined): SpanContext | undefined {
  if (header === null || header === undefined) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId! };
}

/** The `traceparent` of a span, sampled (flags 01): the run exports every span. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-01`;
}
