// How a run that stopped on an error reports it: the API error in the run view and `end` event
// (operator-log.ts writes the operators' line). A storage error or a reached limit ends the run
// for good (it would only happen again); a provider's transient failure and an unexpected error
// can be retried.
import type { ApiError } from "../../api/types";
import { ContextOverflowError } from "../../loop/errors";
import { ProviderError } from "../../providers";
import { McpListFailed } from "../../tools/mcp/mcp-errors";

/** Thrown before a new step when the run has reached a deployment limit (RUN_EVENTS_LIMIT, RUN_BYTES_LIMIT). */
export class RunLimitReached extends Error {
  constructor(readonly setting: string, message: string) {
    super(message);
    this.name = "RunLimitReached";
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** SQLite's own errors (a row past its size limit, a full database): the platform names them SQLITE_*. */
export function isStorageError(error: unknown): boolean {
  return /SQLITE_[A-Z]+/.test(messageOf(error));
}

export function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ContextOverflowError) {
    return { code: "context-overflow", message: `The prompt does not fit the model's context window, even after a compaction: ${error.message}`, retryable: false };
  }
  if (error instanceof ProviderError) return { code: "provider-error", message: error.message, retryable: error.retryable };
  // A server that could not be listed may answer later: POST /retry lists it again.
  if (error instanceof McpListFailed) return { code: "mcp-error", message: error.message, retryable: true };
  if (error instanceof RunLimitReached) return { code: "limit", message: error.message, retryable: false };
  if (isStorageError(error)) {
    const code = /SQLITE_[A-Z]+/.exec(messageOf(error))![0];
    return { code: "storage", message: `The run could not be stored (${code}); it was stopped so that it does not fail again and again.`, retryable: false };
  }
  return { code: "internal", message: "The run stopped on an internal error; it can be retried.", retryable: true };
}
