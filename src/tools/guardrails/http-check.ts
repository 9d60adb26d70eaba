// An HTTP guardrail (docs/guardrails.md "HTTP checks"): one POST to the check's URL, signed as an
// HTTP tool's request is (Standard Webhooks headers, the same keys) with an Idempotency-Key of the
// check's step, answered `{ "pass": boolean, "reason"?: string }`. The host is held to
// HTTP_TOOL_ALLOW when the run is made and again at every check. A check that cannot be sent, does
// not answer in time or answers anything else fails closed: its reason says why (a URL in it
// shown without userinfo, query values or fragment). The loop journals
// the verdict, so once it is stored a crash never asks again.
import { shownUrlsIn } from "../../api/redaction/shown-url";
import type { GuardrailRef } from "../../api/types";
import type { GuardrailCheck, GuardrailContext, GuardrailSubject } from "../../loop/types";
import { readAtMost, StreamTooLarge } from "../../lib/read-at-most";
import { hostOf, isUrlAllowed } from "../http/allow-list";
import { duration } from "../http/http-answer";
import { signRequest } from "../http/sign-request";
import { decodeSigningKeys } from "../http/signing-keys";
import type { ToolDeps } from "../tool-deps";
import { timeoutSignal } from "../../lib/time/timeout-signal";

export type HttpGuardrail = Extract<GuardrailRef, { type: "http" }>;

/** Default of GUARDRAIL_HTTP_SECONDS: how long an HTTP check may take to answer. */
export const DEFAULT_GUARDRAIL_HTTP_SECONDS = 10;
const MAX_ANSWER_BYTES = 64 * 1024;
const REASON_MAX = 2_000;

/** What an HTTP check needs of the run: a tool's deps, and the check's default time to answer. */
export type HttpCheckDeps = Pick<ToolDeps, "runId" | "idempotencyKey" | "fetch" | "allowHosts" | "now" | "signingKeys"> & { timeoutSeconds?: number };

/** The check's answer read: `{ pass: boolean, reason?: string }`. */
export function readCheckAnswer(name: string, status: number, text: string): GuardrailCheck {
  if (status < 200 || status > 299) return { pass: false, reason: `HTTP check ${name} answered ${status}.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { pass: false, reason: `HTTP check ${name} answered something other than JSON.` };
  }
  const { pass, reason } = (parsed ?? {}) as { pass?: unknown; reason?: unknown };
  if (typeof pass !== "boolean") return { pass: false, reason: `HTTP check ${name} answered no boolean "pass".` };
  const said = typeof reason === "string" && reason !== "" ? reason.slice(0, REASON_MAX) : pass ? "Passed." : `HTTP check ${name} gave no reason.`;
  return { pass, reason: said };
}

export function httpCheck(ref: HttpGuardrail, deps: HttpCheckDeps): (subject: GuardrailSubject, context: GuardrailContext) => Promise<GuardrailCheck> {
  const signing = decodeSigningKeys(deps.signingKeys);
  return async (subject, context) => {
    // Asked again at check time: the list may have changed since the run was made.
    if (!isUrlAllowed(ref.url, deps.allowHosts)) return { pass: false, reason: `HTTP check ${ref.name} may not call ${hostOf(ref.url)}: the host is not allowed.` };
    if (!signing.ok) return { pass: false, reason: `HTTP check ${ref.name} was not called: ${signing.problem}.` };
    const idempotencyKey = deps.idempotencyKey(context.key);
    const body = JSON.stringify({ runId: deps.runId, guardrail: ref.name, stage: subject.stage, subject });
    const headers = await signRequest(signing.keys, idempotencyKey, deps.now(), body);
    const timeoutMs = (ref.timeoutSeconds ?? deps.timeoutSeconds ?? DEFAULT_GUARDRAIL_HTTP_SECONDS) * 1000;
    const timeout = timeoutSignal(timeoutMs);
    try {
      // Called bare: a fetch handed over as a plain value (the platform's own) may not take deps as `this`.
      const send = deps.fetch;
      const response = await send(ref.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey, ...headers },
        body,
        redirect: "manual",
        signal: AbortSignal.any([context.signal, timeout.signal]),
      });
      const text = response.body === null ? "" : new TextDecoder().decode(await readAtMost(response.body, MAX_ANSWER_BYTES));
      return readCheckAnswer(ref.name, response.status, text);
    } catch (error) {
      // A cancel is no verdict: it passes on, and nothing is stored.
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (timeout.signal.aborted) return { pass: false, reason: `HTTP check ${ref.name} did not answer within ${duration(timeoutMs)}.` };
      if (error instanceof StreamTooLarge) return { pass: false, reason: `HTTP check ${ref.name} answered more than 64 KiB.` };
      // The reason is shown to clients (the run's guardrail, its events): a URL in the runtime's error without its credentials.
      return { pass: false, reason: `HTTP check ${ref.name} could not be reached: ${shownUrlsIn(error instanceof Error ? error.message : String(error))}` };
    } finally {
      timeout.clear();
    }
  };
}
