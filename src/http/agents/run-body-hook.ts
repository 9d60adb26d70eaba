// The validation hook of POST /v1/runs, whose body is a whole run or a stored agent with the fields
// its caller may set: a refusal names the fields of the kind of body it is (a body with `agent` is
// judged as a run of an agent, any other as a whole run, so a run's refusals read as they always
// did), and a field an agent's run may not set is named with why.
import type { z } from "@hono/zod-openapi";
import type { ValidationTargets } from "hono";
import { agentRunBodySchema } from "../../api/schemas/agent-schemas";
import { createRunBodySchema, TEMPLATE_FIELDS } from "../../api/schemas/create-run-schemas";
import { issuesOf, type Issue } from "../../api/schemas/error-schemas";
import { invalidRequest, validationError } from "../errors";

const SET_BY_AGENT = "Set by the agent: a run of an agent sets only messages, subject, metadata, webhook and budget (at most the agent's).";

/** The issues of a body that names an agent: each template field first, then the rest of the schema's. */
export function agentBodyIssues(data: Record<string, unknown>): Issue[] {
  const fields = Object.keys(data).filter((key) => TEMPLATE_FIELDS.includes(key) && key !== "budget" && key !== "metadata");
  const parsed = agentRunBodySchema.safeParse(data);
  const rest = parsed.success ? [] : issuesOf(parsed.error).filter((issue) => !fields.includes(issue.path));
  return [...fields.map((path) => ({ path, message: SET_BY_AGENT })), ...rest];
}

type Result = { target: keyof ValidationTargets } & ({ success: true } | { success: false; error: z.ZodError });

/** The route's hook: the request's value comes with a failure (the validator passes it), read where it is. */
export function runBodyHook(result: Result): undefined {
  if (result.success) return undefined;
  if (result.target !== "json") throw validationError(result.target, issuesOf(result.error));
  const data: unknown = "data" in result ? result.data : undefined;
  if (typeof data === "object" && data !== null && !Array.isArray(data) && "agent" in data) {
    throw invalidRequest("Invalid request body.", agentBodyIssues(data as Record<string, unknown>));
  }
  const parsed = createRunBodySchema.safeParse(data);
  throw invalidRequest("Invalid request body.", parsed.success ? issuesOf(result.error) : issuesOf(parsed.error));
}
