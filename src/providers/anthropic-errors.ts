// Errors of the Anthropic SDK → Failure (what the retry policy reads) → the ProviderError that ends
// a run: the provider's own message, the status and type, how many attempts were made.
import { APIError } from "@anthropic-ai/sdk";
import { ProviderError } from "./errors";
import { StreamCutError, StreamProtocolError } from "./stream-errors";
import { retryAfterMs, type Failure, type RetryDecision } from "./retry";

type ErrorBody = { error?: { type?: unknown; message?: unknown; details?: { error_code?: unknown } } } | undefined;

function bodyOf(error: APIError): ErrorBody {
  return typeof error.error === "object" && error.error !== null ? (error.error as ErrorBody) : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** What one failed attempt amounts to. Anything that is not an answer from Anthropic is a connection failure. */
export function describeFailure(error: unknown): Failure {
  if (error instanceof StreamCutError) return { kind: "stream-cut", message: error.message };
  if (error instanceof StreamProtocolError) return { kind: "protocol", message: error.message };
  if (error instanceof APIError) {
    const body = bodyOf(error);
    const type = stringOr(error.type) ?? stringOr(body?.error?.type);
    const message = stringOr(error.apiMessage) ?? stringOr(body?.error?.message) ?? error.message;
    if (error.status === undefined) {
      // The SDK raises an `error` event of a stream as an APIError without a status.
      if (type !== undefined) return { kind: "stream-error", type, message };
      return { kind: "connection", message: error.message };
    }
    const failure: Failure = { kind: "status", status: error.status, message };
    if (type !== undefined) failure.type = type;
    const code = stringOr(error.errorCode) ?? stringOr(body?.error?.details?.error_code);
    if (code !== undefined) failure.code = code;
    const wait = retryAfterMs(error.headers);
    if (wait !== undefined) failure.retryAfterMs = wait;
    const should = error.headers?.get("x-should-retry");
    if (should === "true" || should === "false") failure.shouldRetry = should === "true";
    return failure;
  }
  return { kind: "connection", message: error instanceof Error ? error.message : String(error) };
}

function afterAttempts(attempts: number): string {
  return attempts > 1 ? ` after ${attempts} attempts` : "";
}

/** The error that ends the call, once the policy says stop. */
export function providerErrorFor(failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown): ProviderError {
  const retryable = decision.reason === "attempts" || decision.reason === "retry-after-too-long";
  const options = { cause };
  switch (failure.kind) {
    case "status": {
      const what = `Anthropic answered ${failure.status} ${failure.type ?? "error"}`;
      if (decision.reason === "spend-limit") return new ProviderError(`${what} (a spend limit; not retried): ${failure.message}`, false, failure.status, options);
      if (decision.reason === "retry-after-too-long") {
        const seconds = Math.ceil((failure.retryAfterMs ?? 0) / 1000);
        return new ProviderError(`${what} and asked to wait ${seconds} s, longer than a step waits: ${failure.message}`, true, failure.status, options);
      }
      return new ProviderError(`${what}${afterAttempts(attempts)}: ${failure.message}`, retryable, failure.status, options);
    }
    case "stream-error":
      return new ProviderError(`Anthropic's stream failed with ${failure.type ?? "an error"}${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
    case "connection":
      return new ProviderError(`Could not reach Anthropic${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
    case "stream-cut":
      return new ProviderError(`Anthropic's stream ended before the message was complete${afterAttempts(attempts)}.`, retryable, undefined, options);
    case "protocol":
      return new ProviderError(`Anthropic's stream could not be read${afterAttempts(attempts)}: ${failure.message}`, retryable, undefined, options);
  }
}
