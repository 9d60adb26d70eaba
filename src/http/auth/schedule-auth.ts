// Who may do what with schedules. The deployment token manages any schedule; a user token manages
// its own subject's (any other is 404, exactly like an unknown id); a run token none (403). Requests
// with a user token count against RUN_TOKEN_RATE_LIMIT per subject, as on runs; a trigger makes a
// run, so it counts against the run-creation limits (CREATE_RATE_LIMIT per deployment token,
// SUBJECT_CREATE_RATE_LIMIT per subject). The run listing's `scheduleId=` takes the same access.
import type { Context, MiddlewareHandler } from "hono";
import { SCHEDULE_NOT_FOUND } from "../../api/resources/schedule-types";
import { SUBJECT_PATTERN } from "../../api/rules/subject";
import { scheduleStub } from "../../durable/schedule/schedule-stub";
import { inboxStub } from "../../durable/inbox/inbox-stub";
import { agentRunsStub } from "../../durable/agents/agents-stub";
import type { AppEnv, Creator } from "../app-env";
import { ApiException, invalidRequest } from "../errors";
import { identifyDeploymentOrUser, requireSubject, type Caller } from "./auth";
import { deploymentKey, enforceRateLimit, subjectKey } from "./rate-limit";
import { isScheduleId } from "../ids/schedule-ids";

const RUN_TOKEN_REFUSED = "A run token reaches its own run only; use a user token or the deployment token.";

export const scheduleNotFound = (): ApiException => new ApiException(404, SCHEDULE_NOT_FOUND);

function creatorOf(caller: Exclude<Caller, { kind: "run" }>): Creator {
  if (caller.kind === "deployment") return { kind: "deployment" };
  const creator: Creator = { kind: "user", subject: caller.subject };
  if (caller.claims.budgetUsdPerDay !== undefined) creator.budgetUsdPerDay = caller.claims.budgetUsdPerDay;
  return creator;
}

/** The caller, refusing a run token; a user token's request is counted. */
async function owner(c: Context<AppEnv>): Promise<Exclude<Caller, { kind: "run" }>> {
  const caller = await identifyDeploymentOrUser(c, RUN_TOKEN_REFUSED);
  c.set("creator", creatorOf(caller));
  return caller;
}

/**
 * POST /v1/schedules and GET /v1/schedules: the deployment token (the subject, if any, comes from
 * the body or `subject=`), or a user token for its own subject (`subject=` naming another: 403).
 */
export function requireScheduleOwner(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await owner(c);
    const asked = c.req.query("subject");
    if (caller.kind === "user") {
      if (asked !== undefined && asked !== caller.subject) throw new ApiException(403, "A user token reaches its own subject's schedules only.");
      c.set("subject", caller.subject);
    } else if (asked !== undefined) {
      if (!SUBJECT_PATTERN.test(asked)) throw invalidRequest("Invalid request query.", [{ path: "subject", message: "Must be 1–128 printable ASCII characters." }]);
      c.set("subject", asked);
    }
    await next();
  };
}

/** The schedule `id` for `caller`: an id this deployment did not mint, or another subject's schedule, is 404. */
async function reachSchedule(c: Context<AppEnv>, caller: Exclude<Caller, { kind: "run" }>, id: string | undefined): Promise<void> {
  if (id === undefined || !(await isScheduleId(id, c.var.settings.runIdKeys))) throw scheduleNotFound();
  const schedule = scheduleStub(c.env, id);
  if (caller.kind === "user" && !(await schedule.authorizeSubject(caller.subject))) throw scheduleNotFound();
  c.set("schedule", schedule);
  c.set("scheduleId", id);
}

/** Routes under /v1/schedules/:id. With `trigger`, the request makes a run and counts against the run-creation limits. */
export function requireSchedule(options: { trigger?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await owner(c);
    await reachSchedule(c, caller, c.req.param("id"));
    if (options.trigger === true) {
      if (caller.kind === "deployment") await enforceRateLimit(c.env.CREATE_RATE_LIMIT, await deploymentKey(caller.token), "runs created with this deployment token");
      else await enforceRateLimit(c.env.SUBJECT_CREATE_RATE_LIMIT, await subjectKey(caller.subject), "runs created for this subject");
    }
    await next();
  };
}

/**
 * GET /v1/runs: with `scheduleId=`, that schedule's runs, for whoever may reach the schedule (a
 * `subject=` given too must be the caller's own for a user token, else 403, and the schedule's,
 * else 404); with `agent=` and no `subject=`, the deployment token reads the agent's own index of
 * runs (every subject's, and those with none) and a user token its own subject's, as without
 * `agent=`; otherwise one subject's runs, as before.
 */
export function requireRunListing(): MiddlewareHandler<AppEnv> {
  const bySubject = requireSubject();
  return async (c, next) => {
    const scheduleId = c.req.query("scheduleId");
    const agent = c.req.query("agent");
    if (scheduleId === undefined && agent !== undefined && c.req.query("subject") === undefined) {
      const caller = await owner(c);
      if (caller.kind === "user") {
        c.set("subject", caller.subject);
        c.set("inbox", inboxStub(c.env, caller.subject));
      } else {
        // Only a name the query's schema accepts reaches the handler, which alone calls the object.
        c.set("agentRuns", agentRunsStub(c.env, agent));
      }
      return next();
    }
    if (scheduleId === undefined) return bySubject(c, next);
    const caller = await owner(c);
    const asked = c.req.query("subject");
    if (caller.kind === "user" && asked !== undefined && asked !== caller.subject) throw new ApiException(403, "A user token reaches its own subject's runs only.");
    await reachSchedule(c, caller, scheduleId);
    if (asked !== undefined && !(await c.var.schedule.authorizeSubject(asked))) throw scheduleNotFound();
    await next();
  };
}
