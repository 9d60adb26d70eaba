// The one retry layer of a model call (retries that multiply across layers are the cascade to avoid).
// A pure function of (failure, attempt): wait this long and try again, or stop. The SDK's own
// retries are off, and the run engine does not retry a failed step by itself.

/** What went wrong with one attempt, in the terms the policy needs. */
export type Failure =
  | {
      kind: "status";
      status: number;
      /** error.type from the body, e.g. "overloaded_error". */
      type?: string;
      /** error.details.error_code from the body, e.g. "enforced_spend_limit_reached". */
      code?: string;
      message: string;
      /** From retry-after-ms, else retry-after (seconds or an HTTP date). */
      retryAfterMs?: number;
      /** The x-should-retry header. */
      shouldRetry?: boolean;
    }
  /** An `error` event in the middle of a stream. */
  | { kind: "stream-error"; type?: string; message: string }
  /** No answer, or the connection broke while the answer streamed. */
  | { kind: "connection"; message: string }
  /** The stream ended before message_stop. */
  | { kind: "stream-cut"; message: string }
  /** The stream arrived but broke the protocol. */
  | { kind: "protocol"; message: string };

export type RetryPolicy = {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** The wait before the second attempt; it doubles for every further one. */
  baseDelayMs: number;
  /** The cap on the doubling. */
  maxDelayMs: number;
  /** A longer retry-after is not waited for inside a step: the call fails now, retryable. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 16_000, maxRetryAfterMs: 60_000 };

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "not-retryable" | "spend-limit" | "attempts" | "retry-after-too-long" };

/** 429 codes that mean money, not load: waiting does not help (Anthropic's, then OpenAI's). */
const SPEND_LIMIT_CODES = new Set(["contract_spend_limit_reached", "enforced_spend_limit_reached", "insufficient_quota", "billing_hard_limit_reached"]);
const SPEND_LIMIT_TEXT = /spend(ing)? limit|credit balance|usage limit|exceeded your current quota/i;
/** Errors in the middle of a stream that pass: Anthropic's types, then OpenAI's. */
const RETRYABLE_STREAM_ERRORS = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error", "server_error", "rate_limit_exceeded"]);

export function isSpendLimit(failure: Failure): boolean {
  return (
    failure.kind === "status" &&
    failure.status === 429 &&
    ((failure.code !== undefined && SPEND_LIMIT_CODES.has(failure.code)) || SPEND_LIMIT_TEXT.test(failure.message))
  );
}

/** Whether a failure of this kind may pass if tried again (attempts aside). */
export function isRetryable(failure: Failure): boolean {
  switch (failure.kind) {
    case "status":
      if (failure.shouldRetry === false || isSpendLimit(failure)) return false;
      return failure.status === 429 || failure.status === 408 || failure.status >= 500;
    case "stream-error":
      return failure.type === undefined || RETRYABLE_STREAM_ERRORS.has(failure.type);
    case "connection":
    case "stream-cut":
    case "protocol":
      return true;
  }
}

/** Capped exponential backoff with jitter: between half and all of min(cap, base·2^(attempt-1)). */
export function backoffMs(attempt: number, random: () => number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** After attempt `attempt` (1-based) failed with `failure`: wait and retry, or stop. */
export function retryDecision(failure: Failure, attempt: number, random: () => number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): RetryDecision {
  if (isSpendLimit(failure)) return { retry: false, reason: "spend-limit" };
  if (!isRetryable(failure)) return { retry: false, reason: "not-retryable" };
  if (attempt >= policy.maxAttempts) return { retry: false, reason: "attempts" };
  const asked = failure.kind === "status" ? failure.retryAfterMs : undefined;
  if (asked !== undefined && asked > policy.maxRetryAfterMs) return { retry: false, reason: "retry-after-too-long" };
  return { retry: true, delayMs: asked !== undefined ? asked : backoffMs(attempt, random, policy) };
}

/** A string that says something, else undefined (an SDK error's fields are often empty or absent). */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** An answer of the endpoint with an error status: its type and code, and what its headers say of waiting and retrying. */
export function statusFailure(
  status: number,
  message: string,
  label: { type: string | undefined; code: string | undefined },
  headers: { get(name: string): string | null } | undefined,
): Failure {
  const failure: Failure = { kind: "status", status, message };
  if (label.type !== undefined) failure.type = label.type;
  if (label.code !== undefined) failure.code = label.code;
  const wait = retryAfterMs(headers);
  if (wait !== undefined) failure.retryAfterMs = wait;
  const should = headers?.get("x-should-retry");
  if (should === "true" || should === "false") failure.shouldRetry = should === "true";
  return failure;
}

/** retry-after-ms, else retry-after in seconds or as an HTTP date; undefined when absent or unusable. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  const millis = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const header = headers?.get("retry-after");
  if (header === null || header === undefined) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
