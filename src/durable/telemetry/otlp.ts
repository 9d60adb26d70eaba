// The OTLP/JSON shapes a span is written in (opentelemetry-proto, JSON encoding: ids as hex,
// times as strings of nanoseconds since the epoch, 64-bit integers as strings) and a request's body.
// Written here rather than taken from @opentelemetry/* (docs/traces.md says why).

export type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

export type KeyValue = { key: string; value: AnyValue };

/** SpanKind: 1 internal, 3 client. */
export const SPAN_KIND_INTERNAL = 1;
export const SPAN_KIND_CLIENT = 3;

/** Status code 2: error (unset otherwise). */
export const STATUS_ERROR = 2;

export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  links?: { traceId: string; spanId: string; attributes: KeyValue[] }[];
  status?: { code: number; message?: string };
};

export type AttributeValue = string | number | boolean | string[];

/** The longest string attribute written (captured content is cut there, so a span fits its outbox row). */
export const MAX_ATTRIBUTE_CHARS = 16_384;

function valueOf(value: AttributeValue, integer: boolean): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
  if (typeof value === "string") return { stringValue: value.length > MAX_ATTRIBUTE_CHARS ? `${value.slice(0, MAX_ATTRIBUTE_CHARS)}…` : value };
  if (typeof value === "boolean") return { boolValue: value };
  return integer ? { intValue: String(Math.round(value)) } : { doubleValue: value };
}

/** Attributes from a record; numbers under keys in `integers` are written as integers, undefined values are left out. */
export function attributes(record: Record<string, AttributeValue | undefined>, integers: ReadonlySet<string> = INTEGER_KEYS): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined) out.push({ key, value: valueOf(value, integers.has(key)) });
  }
  return out;
}

/** The attributes whose numbers are counts. */
export const INTEGER_KEYS: ReadonlySet<string> = new Set([
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.cache_read.input_tokens",
  "gen_ai.usage.cache_creation.input_tokens",
  "ratchet.step",
  "ratchet.segment",
  "ratchet.compaction.tokens_before",
  "ratchet.compaction.tokens_after",
]);

/** Milliseconds since the epoch as OTLP's nanoseconds. */
export function nanos(ms: number): string {
  return `${Math.round(ms)}000000`;
}

/** The body of one POST to `<endpoint>/v1/traces`: the spans under the service's resource. */
export function exportRequest(spans: OtlpSpan[], serviceName: string, version: string): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ "service.name": serviceName, "service.version": version, "telemetry.sdk.name": "ratchet", "telemetry.sdk.language": "webjs" }) },
        scopeSpans: [{ scope: { name: "ratchet", version }, spans }],
      },
    ],
  };
}

/** exportRequest's JSON text around spans that are JSON texts already: they are joined in, not parsed and written again. */
export function exportRequestText(spans: readonly string[], serviceName: string, version: string): string {
  const around = JSON.stringify(exportRequest([], serviceName, version));
  const at = around.indexOf('"spans":[]') + '"spans":['.length;
  return `${around.slice(0, at)}${spans.join(",")}${around.slice(at)}`;
}
