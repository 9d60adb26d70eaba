// Errors of the Anthropic SDK → Failure (what the retry policy reads) → the ProviderError that ends
// a run: the provider's own message, the status and type, how many attempts were made.
import { APIError } from "@anthropic-ai/sdk";
import { endingError, type VendorWords } from "./ending-error";
import type { ProviderError } from "./errors";
import { StreamCutError, StreamProtocolError } from "./anthropic-stream";
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

const ANTHROPIC: VendorWords = { name: "Anthropic", label: (failure) => failure.type ?? "error", spendLimit: "a spend limit", whole: "message" };

/** The error that ends the call, once the policy says stop. */
export function providerErrorFor(failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown): ProviderError {
  return endingError(ANTHROPIC, failure, attempts, decision, cause);
}
