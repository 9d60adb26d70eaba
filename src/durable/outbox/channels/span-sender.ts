// One export of spans: the rows' spans POSTed as OTLP/JSON to `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`
// with OTEL_EXPORTER_OTLP_HEADERS. As the OTLP spec asks: a 2xx took them (a partial success's
// rejected spans are not sent again); 429, 502, 503, 504, 408 and no answer at all are tried again;
// any other answer refuses them for good. Never a throw: the outbox decides what next.
import { shownUrlsIn } from "../../../api/redaction/shown-url";
import { otelOf } from "../../../config/otel-settings";
import { VERSION } from "../../../version";
import { exportRequestText } from "../../telemetry/otlp";
import { timeoutSignal } from "../../../lib/time/timeout-signal";

export type SpanAnswer = { ok: true; rejected: number } | { ok: false; retry: boolean; error: string };

export type SpanSend = (bodies: readonly string[]) => Promise<SpanAnswer>;

/** How long an export waits for the collector's answer. */
export const SPAN_EXPORT_TIMEOUT_MS = 10_000;

const RETRYABLE = new Set([408, 429, 502, 503, 504]);

function rejectedOf(text: string): number {
  try {
    const rejected = (JSON.parse(text) as { partialSuccess?: { rejectedSpans?: string | number } }).partialSuccess?.rejectedSpans;
    return Number(rejected ?? 0) || 0;
  } catch {
    return 0;
  }
}

export function spanSender(env: Env, fetcher: typeof fetch): SpanSend {
  return async (bodies) => {
    const otel = otelOf(env);
    if (otel === undefined) return { ok: false, retry: false, error: "OTEL_EXPORTER_OTLP_ENDPOINT is not set" };
    const timeout = timeoutSignal(SPAN_EXPORT_TIMEOUT_MS);
    try {
      const response = await fetcher(otel.tracesUrl, {
        method: "POST",
        headers: { ...otel.headers, "Content-Type": "application/json", "User-Agent": `Ratchet/${VERSION}` },
        body: exportRequestText(bodies, otel.serviceName, VERSION),
        redirect: "manual",
        signal: timeout.signal,
      });
      const text = await response.text().catch(() => "");
      if (response.status >= 200 && response.status < 300) return { ok: true, rejected: rejectedOf(text) };
      return { ok: false, retry: RETRYABLE.has(response.status), error: `The collector answered ${response.status}.` };
    } catch (error) {
      return { ok: false, retry: true, error: `No answer: ${shownUrlsIn(error instanceof Error ? error.message : String(error))}` };
    } finally {
      timeout.clear();
    }
  };
}
