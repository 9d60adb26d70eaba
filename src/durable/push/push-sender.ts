// One push attempt: the row's payload encrypted for its subscription, signed with the deployment's
// VAPID key, POSTed to the subscription's endpoint. Everything that stops an attempt — push turned
// off, an endpoint taken off PUSH_HOSTS, a timeout, a refusal — is an answer with status 0 or the
// push service's status, never a throw: the delivery decides what next.
import { pushSettingsOf } from "../../config/push-settings";
import { toBase64Url } from "../../push/base64url";
import { isPushEndpointAllowed } from "../../push/push-hosts";
import { buildPushRequest } from "../../push/push-request";
import { PUSH_TIMEOUT_MS, PUSH_TTL_SECONDS } from "./push-schedule";
import type { PushSubscriptionRecord } from "./subscription-store";
import { timeoutSignal } from "../../lib/time/timeout-signal";

export type PushAnswer = { status: number; error?: string; retryAfterMs?: number };

export type PushSend = (subscription: PushSubscriptionRecord, payload: string, runId: string) => Promise<PushAnswer>;

/** The Topic of a run's pushes: a newer push about the run replaces one its push service still holds. */
async function topicOf(runId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`ratchet/push-topic/v1:${runId}`)));
  return toBase64Url(digest).slice(0, 32);
}

function retryAfterOf(response: Response): number | undefined {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

export function pushSender(env: object, fetcher: typeof fetch, now: () => number): PushSend {
  return async (subscription, payload, runId) => {
    const settings = await pushSettingsOf(env);
    if (!settings.ok) return { status: 0, error: `Web Push is off: ${settings.problems.map((item) => `${item.setting} ${item.problem}`).join("; ")}` };
    if (!isPushEndpointAllowed(subscription.endpoint, settings.settings.hosts)) return { status: 0, error: "The endpoint's host is not on PUSH_HOSTS." };
    const timeout = timeoutSignal(PUSH_TIMEOUT_MS);
    try {
      const request = await buildPushRequest(subscription, payload, settings.settings.vapid, { ttlSeconds: PUSH_TTL_SECONDS, urgency: "high", topic: await topicOf(runId) }, now());
      const response = await fetcher(request.url, { method: "POST", headers: request.headers, body: request.body, redirect: "manual", signal: timeout.signal });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { status: response.status };
      const retryAfterMs = retryAfterOf(response);
      return { status: response.status, error: `The push service answered ${response.status}.`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return { status: 0, error: timedOut ? `No answer within ${PUSH_TIMEOUT_MS / 1000} s.` : `No answer: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      timeout.clear();
    }
  };
}
