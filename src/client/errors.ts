// One error class for everything the client can fail with. `code` is the API's error code
// (invalid-request, unauthorized, forbidden, not-found, conflict, too-large, rate-limited,
// internal), or one of the client's own: "network" (no answer arrived) and "invalid-response"
// (an answer that is not the API's).
import { ERROR_CODES } from "../api/rules/error-codes.ts";
import type { Issue } from "./types.ts";

const CODES_BY_STATUS: Record<number, string> = ERROR_CODES;

export class RatchetError extends Error {
  override readonly name = "RatchetError";
  /** The API's error code, or "network" / "invalid-response". */
  readonly code: string;
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** What was wrong with the request, for `invalid-request`. */
  readonly issues: Issue[] | undefined;

  constructor(detail: { code: string; message: string; status: number; issues?: Issue[] }, options: { cause?: unknown } = {}) {
    super(detail.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = detail.code;
    this.status = detail.status;
    this.issues = detail.issues;
  }

  /** Worth trying again later: no answer, a rate limit or a server error. Any other 4xx will not change. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

function isErrorBody(value: unknown): value is { error: { code: string; message: string; issues?: Issue[] } } {
  if (typeof value !== "object" || value === null) return false;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && typeof message === "string";
}

/**
 * The message of an answer with issues: the API's message, then the first issue (where and what),
 * then how many more `issues` hold, so a log line or an alert alone says what to fix.
 */
export function messageWithIssues(message: string, issues: Issue[] | undefined): string {
  const first = issues?.[0];
  if (first === undefined) return message;
  const where = first.path === "" ? "" : `${first.path}: `;
  const more = issues!.length > 1 ? ` (and ${issues!.length - 1} more in .issues)` : "";
  return `${message} ${where}${first.message}${more}`;
}

/** The error of a non-2xx answer: the API's own error body, or one made from the status. */
export function errorFromAnswer(status: number, text: string): RatchetError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) {
    const { code, message, issues } = body.error;
    return new RatchetError(issues === undefined ? { code, message, status } : { code, message: messageWithIssues(message, issues), status, issues });
  }
  const code = CODES_BY_STATUS[status] ?? (status >= 500 ? "internal" : "invalid-response");
  return new RatchetError({ code, message: `HTTP ${status}${text === "" ? "" : `: ${text.slice(0, 200)}`}`, status });
}

export function networkError(url: string, cause: unknown): RatchetError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new RatchetError({ code: "network", message: `No answer from ${url}: ${reason}`, status: 0 }, { cause });
}
