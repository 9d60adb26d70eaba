// The validation hooks of the bodies that hold a run which may name a stored agent instead of
// carrying a template (POST /v1/runs; a schedule's `run`): a refusal names the fields of the kind
// of run it is (a run with `agent` is judged as a run of an agent, any other as a whole run, so a
// run's refusals read as they always did), and a field an agent's run may not set is named with why.
import type { z } from "@hono/zod-openapi";
import type { ValidationTargets } from "hono";
import { agentRunBodySchema } from "../../api/schemas/agents/agent-schemas";
import { createRunBodySchema, TEMPLATE_FIELDS } from "../../api/schemas/runs/create-run-schemas";
import { issuesOf, type Issue } from "../../api/schemas/error-schemas";
import { prefixed } from "../../intake/refusal";
import { invalidRequest, validationError } from "../errors";

const SET_BY_AGENT = "Set by the agent: a run of an agent sets only messages, subject, metadata, tags, webhook and budget (at most the agent's).";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The issues of a run that names an agent: each template field first, then the rest of the schema's. */
export function agentBodyIssues(data: Record<string, unknown>): Issue[] {
  const fields = Object.keys(data).filter((key) => TEMPLATE_FIELDS.includes(key) && key !== "budget" && key !== "metadata");
  const parsed = agentRunBodySchema.safeParse(data);
  const rest = parsed.success ? [] : issuesOf(parsed.error).filter((issue) => !fields.includes(issue.path));
  return [...fields.map((path) => ({ path, message: SET_BY_AGENT })), ...rest];
}

type Result = { target: keyof ValidationTargets } & ({ success: true } | { success: false; error: z.ZodError });

/**
 * A hook for a body whose run is at `runAt` ("" for the body itself): the run's issues as its
 * kind's schema names them, beside those of the rest of the body (`whole`: the body's schema with
 * a whole run, whose issues outside the run are the body's own).
 */
export function runBodyHookAt(runAt: "" | "run", whole: z.ZodType) {
  return (result: Result): undefined => {
    if (result.success) return undefined;
    if (result.target !== "json") throw validationError(result.target, issuesOf(result.error));
    // The validator passes the request's value with a failure.
    const data: unknown = "data" in result ? result.data : undefined;
    const run = runAt === "" ? data : isObject(data) ? data[runAt] : undefined;
    const parsed = whole.safeParse(data);
    const wholeIssues = parsed.success ? [] : issuesOf(parsed.error);
    if (!isObject(run) || !("agent" in run)) throw invalidRequest("Invalid request body.", parsed.success ? issuesOf(result.error) : wholeIssues);
    const outside = runAt === "" ? [] : wholeIssues.filter((issue) => issue.path !== runAt && !issue.path.startsWith(`${runAt}.`));
    throw invalidRequest("Invalid request body.", [...outside, ...prefixed(runAt, agentBodyIssues(run))]);
  };
}

/** POST /v1/runs. */
export const runBodyHook = runBodyHookAt("", createRunBodySchema);
