// One signed POST to an HTTP tool (docs/http-tools.md "The request"). Whatever goes wrong on the
// way (no answer in time, an unreachable host, an answer past 1 MiB) is a failure the model sees;
// only a cancel passes through as a thrown abort, so the loop ends the call instead of reporting it.
import { shownUrlsIn } from "../../api/redaction/shown-url";
import { readAtMost, StreamTooLarge } from "../../lib/read-at-most";
import type { ToolContext, ToolOutput } from "../../loop/types";
import { duration, failure } from "./http-answer";
import { signRequest } from "./sign-request";
import type { SigningKeyBytes } from "./signing-keys";
import type { ToolDeps } from "../tool-deps";
import { timeoutSignal } from "../../lib/time/timeout-signal";

export const DEFAULT_HTTP_TOOL_TIMEOUT_MS = 30_000;
/** Larger answers would not fit the journal's row; the model gets an error instead. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export type Posted = { kind: "answered"; response: Response; text: string } | { kind: "failed"; output: ToolOutput };

/** The body as text, refusing more than MAX_ANSWER_BYTES without reading it all. */
async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return "";
  return new TextDecoder().decode(await readAtMost(response.body, MAX_ANSWER_BYTES));
}

/** POSTs `payload` as JSON to the tool's URL, signed, with the call's Idempotency-Key. */
export async function postToTool(
  tool: { name: string; url: string },
  deps: ToolDeps,
  keys: SigningKeyBytes,
  payload: object,
  context: ToolContext,
): Promise<Posted> {
  const idempotencyKey = deps.idempotencyKey(context.key);
  const body = JSON.stringify(payload);
  // The Idempotency-Key is the message id, so a resend of the same call is the same message to
  // the tool server (only the timestamp and so the signature change).
  const signature = await signRequest(keys, idempotencyKey, deps.now(), body);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS;
  // Stopped once the call is over (lib/time/timeout-signal.ts says why not AbortSignal.timeout).
  const timeout = timeoutSignal(timeoutMs, `HTTP tool ${tool.name} timed out`);
  const signal = AbortSignal.any([context.signal, timeout.signal]);
  try {
    const response = await deps.fetch(tool.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey, ...signature, ...(deps.traceparent === undefined ? {} : { traceparent: deps.traceparent(context.key) }) },
      body,
      // A redirect could lead outside the allow list: it is reported, never followed.
      redirect: "manual",
      signal,
    });
    return { kind: "answered", response, text: await readCapped(response) };
  } catch (error) {
    // A cancel is not the tool's failure: it passes on so the loop stops the call.
    if (context.signal.aborted) throw context.signal.reason ?? error;
    if (timeout.signal.aborted) return { kind: "failed", output: failure(`HTTP tool ${tool.name} did not answer within ${duration(timeoutMs)}.`) };
    if (error instanceof StreamTooLarge) return { kind: "failed", output: failure(`HTTP tool ${tool.name} answered more than 1 MiB.`) };
    // The runtime's words may name the URL: the model, the run's history and its views see it as every URL is shown.
    const reason = shownUrlsIn(error instanceof Error ? error.message : String(error));
    return { kind: "failed", output: failure(`HTTP tool ${tool.name} could not be reached: ${reason}`) };
  } finally {
    timeout.clear();
  }
}
