// Answers of the run object's RPC methods: the value, or an API error built from the same table
// of codes and messages as the edge's (src/api/rules/error-codes.ts).
import { ERROR_CODES, RUN_NOT_FOUND } from "../../api/rules/error-codes";
import type { Issue } from "../../api/schemas/error-schemas";
import type { ApiError, Outcome, RunView } from "../../api/types";
import { readRunForView } from "./store/run-store";
import { toRunView } from "./store/run-view";

export type Failure = { ok: false; status: 400 | 402 | 404 | 409 | 413; error: ApiError };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

export function fail(status: Failure["status"], message: string, issues?: Issue[]): Failure {
  const error: ApiError = { code: ERROR_CODES[status], message };
  if (issues !== undefined && issues.length > 0) error.issues = issues;
  return { ok: false, status, error };
}

export const notFound = () => fail(404, RUN_NOT_FOUND);

export const invalidImages = (issues: Issue[]) => fail(400, "Invalid image.", issues);

/** The run's view as stored now, or not found. */
export function viewNow(sql: SqlStorage): Outcome<RunView> {
  const run = readRunForView(sql);
  return run === undefined ? notFound() : ok(toRunView(run));
}
