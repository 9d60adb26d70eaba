// The workerd side of the OTLP receiver (./global-setup.ts), for test/otel/: its spans, read
// by trace, with their attributes as a plain record.
import { inject } from "vitest";

export type Span = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code: number; message?: string };
};
export type Arrival = { span: Span; resource: { attributes: Span["attributes"] }; headers: Record<string, string>; answered: number };

const receiver = () => inject("otlpReceiverUrl");

export async function arrivals(traceId?: string): Promise<Arrival[]> {
  const all = (await (await fetch(`${receiver()}/__spans`)).json()) as Arrival[];
  return traceId === undefined ? all : all.filter((arrival) => arrival.span.traceId === traceId);
}

/** The spans of a trace, each span id once (the first arrival), in arrival order. */
export async function spansOf(traceId: string): Promise<Span[]> {
  const seen = new Map<string, Span>();
  for (const { span } of await arrivals(traceId)) if (!seen.has(span.spanId)) seen.set(span.spanId, span);
  return [...seen.values()];
}

export function attrs(span: Span): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of span.attributes) {
    const v = value as { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: { stringValue: string }[] } };
    out[key] = v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values.map((item) => item.stringValue);
  }
  return out;
}

/** The next `count` exports are answered `status`. */
export async function failNext(count: number, status = 503): Promise<void> {
  await fetch(`${receiver()}/__control/fail`, { method: "POST", body: JSON.stringify({ count, status }) });
}
