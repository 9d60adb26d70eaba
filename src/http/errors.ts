// Every refusal and failure leaves the edge in one shape, { error: { code, message, issues? } },
// and never with a stack trace: handlers throw, app.onError answers. Unexpected errors are logged
// as one JSON line (method, path, the error's name and message: no query, no stack) and answered
// with a generic 500.
import { ERROR_CODES, RUN_NOT_FOUND, type ApiStatus } from "../api/rules/error-codes";
import type { Hook } from "@hono/zod-openapi";
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { issuesOf, type ErrorDetail, type Issue } from "../api/schemas/error-schemas";
import type { AppEnv } from "./app-env";

export type { ApiStatus };
const CODES: Record<ApiStatus, string> = ERROR_CODES;

/** An HTTPException that knows its API error code and, for bad input, the issues. */
export class ApiException extends HTTPException {
  readonly code: string;
  readonly issues: Issue[] | undefined;
  /** Sent as Retry-After (a 429). */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: ApiStatus, message: string, options: { code?: string; issues?: Issue[]; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(status, { message, cause: options.cause });
    this.name = "ApiException";
    this.code = options.code ?? CODES[status];
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function invalidRequest(message: string, issues?: Issue[]): ApiException {
  return new ApiException(400, message, issues === undefined ? {} : { issues });
}

export function notFound(): ApiException {
  // One message for every kind of miss, so an answer tells nothing about which ids exist.
  return new ApiException(404, RUN_NOT_FOUND);
}

function errorResponse(c: Context, status: ContentfulStatusCode, detail: ErrorDetail): Response {
  return c.json({ error: detail }, status);
}

/** Errors thrown by Hono and its middleware (bad JSON, wrong Content-Type, …) in the API's terms. */
function fromHttpException(error: HTTPException): { status: ApiStatus; detail: ErrorDetail } | undefined {
  if (error.status === 415) {
    return { status: 400, detail: { code: CODES[400], message: "The body must be JSON (Content-Type: application/json)." } };
  }
  if (error.status in CODES && error.status < 500) {
    const status = error.status as ApiStatus;
    return { status, detail: { code: CODES[status], message: error.message || "Request refused." } };
  }
  return undefined;
}

export const onError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof ApiException) {
    const detail: ErrorDetail = { code: error.code, message: error.message };
    if (error.issues !== undefined && error.issues.length > 0) detail.issues = error.issues;
    if (error.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.retryAfterSeconds));
    return errorResponse(c, error.status, detail);
  }
  if (error instanceof HTTPException) {
    const known = fromHttpException(error);
    if (known !== undefined) return errorResponse(c, known.status, known.detail);
  }
  const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error(JSON.stringify({ msg: "ratchet.internal-error", method: c.req.method, path: new URL(c.req.url).pathname, error: described }));
  return errorResponse(c, 500, { code: CODES[500], message: "Internal error." });
};

/**
 * Hono hands only Error instances to onError; anything else thrown would escape as the runtime's
 * own 500 page. The first middleware turns such a throw into an Error (kept as its cause).
 */
export const errorsOnly: MiddlewareHandler = async (_c, next) => {
  try {
    await next();
  } catch (thrown) {
    if (thrown instanceof Error) throw thrown;
    throw new Error(`Non-error thrown: ${String(thrown)}`, { cause: thrown });
  }
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, 404, { code: CODES[404], message: `No route for ${c.req.method} ${new URL(c.req.url).pathname}.` });

const TARGET_NAMES: Record<string, string> = { json: "body", query: "query", param: "path", header: "headers" };

/** The 400 of a zod failure on `target` (json, query, param, header), with the issues. */
export function validationError(target: string, issues: Issue[]): ApiException {
  return invalidRequest(`Invalid request ${TARGET_NAMES[target] ?? target}.`, issues);
}

/** The defaultHook of every OpenAPIHono: a zod failure becomes a 400 with the issues. */
export const validationHook: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return undefined;
  throw validationError(result.target, issuesOf(result.error));
};
