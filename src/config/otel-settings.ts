// The trace export's settings (docs/traces.md), named as OpenTelemetry's own exporters name them:
// OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP; spans go to `<endpoint>/v1/traces`; unset: no
// export), OTEL_EXPORTER_OTLP_HEADERS (a secret: `key=value` pairs separated by commas, values
// URL-encoded, sent with every export, the backend's key among them), OTEL_SERVICE_NAME (default
// `ratchet`) and OTEL_CAPTURE_CONTENT (`on` writes message and tool content into spans; off by
// default). A bad value is a problem of the deployment (its 503 names the setting, never the value).
import { parsePublicUrl } from "./public-url";

export type OtelSettings = {
  /** Where spans are POSTed: the endpoint with `/v1/traces`. */
  tracesUrl: string;
  headers: Record<string, string>;
  serviceName: string;
  capture: boolean;
};

export const OTEL_SETTING_NAMES = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME", "OTEL_CAPTURE_CONTENT"] as const;

type OtelEnv = Record<string, unknown>;

function textOf(env: OtelEnv, name: string): string | undefined {
  const value = env[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** Header names as HTTP allows them (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `key=value,key2=value2` (values URL-decoded), or undefined when it is not that. */
export function parseOtlpHeaders(text: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) return undefined;
    const name = item.slice(0, at).trim();
    let value: string;
    try {
      value = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      return undefined;
    }
    if (!HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) return undefined;
    headers[name] = value;
  }
  return headers;
}

type Read = { settings: OtelSettings | undefined; problems: { setting: string; problem: string }[] };

export function readOtelSettings(env: OtelEnv): Read {
  const problems: Read["problems"] = [];
  const endpoint = parsePublicUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (endpoint === "invalid") problems.push({ setting: "OTEL_EXPORTER_OTLP_ENDPOINT", problem: "is not an http(s) URL without query or fragment" });
  const headersText = textOf(env, "OTEL_EXPORTER_OTLP_HEADERS");
  const headers = headersText === undefined ? {} : parseOtlpHeaders(headersText);
  if (headers === undefined) problems.push({ setting: "OTEL_EXPORTER_OTLP_HEADERS", problem: "is not a list of key=value pairs separated by commas (values URL-encoded)" });
  const capture = textOf(env, "OTEL_CAPTURE_CONTENT")?.toLowerCase();
  if (capture !== undefined && capture !== "on" && capture !== "off") problems.push({ setting: "OTEL_CAPTURE_CONTENT", problem: "must be on or off" });
  if (problems.length > 0 || endpoint === undefined || endpoint === "invalid") return { settings: undefined, problems };
  return {
    settings: { tracesUrl: `${endpoint}/v1/traces`, headers: headers!, serviceName: textOf(env, "OTEL_SERVICE_NAME") ?? "ratchet", capture: capture === "on" },
    problems,
  };
}

const cache = new WeakMap<object, OtelSettings | undefined>();

/** The export's settings as the run object applies them: undefined when off (or not valid: the edge refuses new work then). */
export function otelOf(env: object): OtelSettings | undefined {
  if (!cache.has(env)) cache.set(env, readOtelSettings(env as OtelEnv).settings);
  return cache.get(env);
}
