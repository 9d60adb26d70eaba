// Errors of the OpenAI SDK → Failure (what the shared retry policy reads) → the ProviderError that
// ends a run, as the anthropic provider does: the endpoint's own message, the status and
// type/code, how many attempts were made. A prompt too long for the model's context window is
// told apart, so the loop compacts instead of retrying.
import { APIConnectionError, APIError } from "openai";
import { StreamCutError, StreamProtocolError } from "../common/stream-errors";
import { endingError, type VendorWords } from "../common/ending-error";
import type { ProviderError } from "../common/errors";
import { nonEmpty, statusFailure, type Failure, type RetryDecision } from "../common/retry";

type ErrorBody = { type?: unknown; code?: unknown; message?: unknown } | undefined;

function bodyOf(error: APIError): ErrorBody {
  return typeof error.error === "object" && error.error !== null ? (error.error as ErrorBody) : undefined;
}

/** What one failed attempt amounts to. Anything that is not an answer from the endpoint is a connection failure. */
export function describeOpenAIFailure(error: unknown): Failure {
  if (error instanceof StreamCutError) return { kind: "stream-cut", message: error.message };
  if (error instanceof StreamProtocolError) return { kind: "protocol", message: error.message };
  // The SDK's reading of a chunk that is not JSON.
  if (error instanceof SyntaxError) return { kind: "protocol", message: error.message };
  if (error instanceof APIConnectionError) return { kind: "connection", message: error.message };
  if (error instanceof APIError) {
    const body = bodyOf(error);
    const type = nonEmpty(error.type) ?? nonEmpty(body?.type);
    const code = nonEmpty(error.code) ?? nonEmpty(body?.code);
    const message = nonEmpty(body?.message) ?? error.message;
    if (error.status === undefined) {
      // An `error` object in the middle of a stream: the SDK raises it without a status.
      return { kind: "stream-error", ...(type ?? code ? { type: (type ?? code)! } : {}), message };
    }
    return statusFailure(error.status, message, { type, code }, error.headers);
  }
  return { kind: "connection", message: error instanceof Error ? error.message : String(error) };
}

/**
 * OpenAI answers a prompt past the context window with 400 code context_length_exceeded ("This
 * model's maximum context length is 128000 tokens. However, your messages resulted in …");
 * compatible servers (vLLM, Groq, gateways) word it alike.
 */
const OVERFLOW = /maximum context length|context[_ ]length[_ ]exceeded|context window|prompt is too long|too many (input )?tokens|reduce the length of the (messages|prompt)/i;

export function isOpenAIContextOverflow(failure: Failure): boolean {
  if (failure.kind !== "status" || (failure.status !== 400 && failure.status !== 413)) return false;
  return failure.code === "context_length_exceeded" || OVERFLOW.test(failure.message);
}

/** Key-shaped words (OpenAI's 401 quotes the key it was sent, masked: "sk-proj-****abcd"). */
const KEY_LIKE = /\b(sk|rk|pk)-[A-Za-z0-9_*-]{4,}/g;

/**
 * The failure with any trace of the key taken out of its message: the key itself, and words shaped
 * like a key (a masked key still shows its last characters). The message reaches the run's view.
 */
export function withoutKey(failure: Failure, apiKey: string): Failure {
  let message = apiKey.length >= 4 ? failure.message.split(apiKey).join("[key]") : failure.message;
  message = message.replace(KEY_LIKE, "[key]");
  return message === failure.message ? failure : { ...failure, message };
}

const OPENAI: VendorWords = { name: "OpenAI", label: (failure) => failure.code ?? failure.type ?? "error", spendLimit: "a quota or spend limit", whole: "answer" };

/** The error that ends the call, once the policy says stop. */
export function openAIProviderError(failure: Failure, attempts: number, decision: Extract<RetryDecision, { retry: false }>, cause: unknown): ProviderError {
  return endingError(OPENAI, failure, attempts, decision, cause);
}
