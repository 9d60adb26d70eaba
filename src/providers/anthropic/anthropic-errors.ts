// Errors of the Anthropic SDK → Failure (what the retry policy reads) → the ProviderError that ends
// a run: the provider's own message, the status and type, how many attempts were made.
import { APIError } from "@anthropic-ai/sdk";
import { endingError, type VendorWords } from "../common/ending-error";
import type { ProviderError } from "../common/errors";
import { StreamCutError, StreamProtocolError } from "../common/stream-errors";
import { nonEmpty, statusFailure, type Failure, type RetryDecision } from "../common/retry";

type ErrorBody = { error?: { type?: unknown; message?: unknown; details?: { error_code?: unknown } } } | undefined;

function bodyOf(error: APIError): ErrorBody {
  return typeof error.error === "object" && error.error !== null ? (error.error as ErrorBody) : undefined;
}

/** What one failed attempt amounts to. Anything that is not an answer from Anthropic is a connection failure. */
export function describeFailure(error: unknown): Failure {
  if (error instanceof StreamCutError) return { kind: "stream-cut", message: error.message };
  if (error instanceof StreamProtocolError) return { kind: "protocol", message: error.message };
  if (error instanceof APIError) {
    const body = bodyOf(error);
    const type = nonEmpty(error.type) ?? nonEmpty(body?.error?.type);
    const message = nonEmpty(error.apiMessage) ?? nonEmpty(body?.error?.message) ?? error.message;
    if (error.status === undefined) {
      // The SDK raises an `error` event of a stream as an APIError without a status.
      if (type !== undefined) return { kind: "stream-error", type, message };
      return { kind: "connection", message: error.message };
    }
    const code = nonEmpty(error.errorCode) ?? nonEmpty(body?.error?.details?.error_code);
    return statusFailure(error.status, message, { type, code }, error.headers);
  }
  return { kind: "connection", message: error instanceof Error ? error.message : String(error) };
}

const ANTHROPIC: VendorWords = { name: "Anthropic", label: (failure) => failure.type ?? "error", spendLimit: "a spend limit", whole: "message" };

/** The error that ends the call, once the policy says stop. */
export function providerErrorFor(failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown): ProviderError {
  return endingError(ANTHROPIC, failure, attempts, decision, cause);
}
