// The API's error shape (docs/api.md): the body of every refusal, and zod's issues as the API reports
// them, so a bad body or frame says which field and why.
import { z } from "@hono/zod-openapi";
import type * as Api from "../types";

/** One problem with a request, as the API reports it: `path` is dotted ("messages.0.content"). */
export type Issue = { path: string; message: string };

/** The error of every refusal; `issues` lists what was wrong with a body or frame. */
export type ErrorDetail = Api.ApiError;

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");

type ZodIssue = z.core.$ZodIssue;

function deepestPath(issues: readonly ZodIssue[]): number {
  return Math.max(-1, ...issues.map((issue) => issue.path.length));
}

/**
 * zod's issues as the API reports them. A failed union reports the branch that got furthest
 * (a content array with one bad part says which part and why, not "Invalid input").
 */
export function issuesOf(error: z.ZodError): Issue[] {
  return flatten(error.issues, []);
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join(".");

function flatten(issues: readonly ZodIssue[], prefix: PropertyKey[]): Issue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (deepestPath(b) > deepestPath(a) ? b : a));
      return flatten(best, path);
    }
    // One issue per unknown field, at the field itself.
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ path: dotted([...path, key]), message: "Unknown field." }));
    return [{ path: dotted(path), message: issue.message }];
  });
}
