// One webhook attempt: the outbox row's body POSTed to its receiver, signed per Standard Webhooks
// (webhook-id: the row's event id, the same on every attempt; webhook-timestamp: this attempt's
// time, so a receiver's replay window holds for a late retry too). Everything that stops an
// attempt — no URL, a host taken off the allow list, no usable secret, a timeout, a refusal — is
// an answer with status 0 or the receiver's status, never a throw: the outbox decides what next.
import { shownUrlsIn } from "../../../api/redaction/shown-url";
import { webhookKeysOf } from "../../../config/webhook-settings";
import { hostOf, isUrlAllowed, parseAllowList } from "../../../tools/http/allow-list";
import { signRequest } from "../../../tools/http/sign-request";
import type { OutboxRow } from "../outbox-store";
import { WEBHOOK_TIMEOUT_MS } from "../outbox-schedule";
import { timeoutSignal } from "../../../lib/time/timeout-signal";

export type WebhookAnswer = { status: number; error?: string };

export type WebhookSend = (row: OutboxRow) => Promise<WebhookAnswer>;

/** Where the row goes: the deployment's WEBHOOK_URL (read now), or the run's own URL if its host is still allowed. */
function receiverOf(env: Env, row: OutboxRow): { url: string } | { error: string } {
  if (row.target === "run") {
    const url = row.url ?? "";
    if (!isUrlAllowed(url, parseAllowList(env.HTTP_TOOL_ALLOW))) return { error: `${hostOf(url)} is not on the allow list (HTTP_TOOL_ALLOW)` };
    return { url };
  }
  const url = env.WEBHOOK_URL?.trim() ?? "";
  return url === "" ? { error: "WEBHOOK_URL is not set" } : { url };
}

export function webhookSender(env: Env, fetcher: typeof fetch, now: () => number): WebhookSend {
  return async (row) => {
    const receiver = receiverOf(env, row);
    if ("error" in receiver) return { status: 0, error: receiver.error };
    const keys = webhookKeysOf(env);
    if (!keys.ok) return { status: 0, error: keys.problem };
    const signature = await signRequest(keys.keys, row.eventId, new Date(now()), row.body);
    const timeout = timeoutSignal(WEBHOOK_TIMEOUT_MS);
    try {
      const response = await fetcher(receiver.url, {
        method: "POST",
        // traceparent: the span of the stop the webhook tells (docs/traces.md), so the receiver's spans join the run's trace.
        headers: { "Content-Type": "application/json", "User-Agent": "Ratchet-Webhooks/1", ...signature, ...(row.traceparent === undefined ? {} : { traceparent: row.traceparent }) },
        body: row.body,
        // A redirect is not a delivery: the receiver is the URL that was configured.
        redirect: "manual",
        signal: timeout.signal,
      });
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return ok ? { status: response.status } : { status: response.status, error: `The receiver answered ${response.status}.` };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return { status: 0, error: timedOut ? `No answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.` : `No answer: ${shownUrlsIn(error instanceof Error ? error.message : String(error))}` };
    } finally {
      timeout.clear();
    }
  };
}
