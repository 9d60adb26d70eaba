// /v1/schedules: each handler parses (the route's schemas did), checks what only the edge can (the
// run against the deployment, the clock against SCHEDULE_MIN_SECONDS), asks the schedule's object,
// and answers. Fires, overlap and catch-up are the object's (src/durable/schedule).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ListPosition } from "../../api/rpc/inbox-rpc";
import type { NewSchedule, SchedulePatch } from "../../api/rpc/schedule-rpc";
import type { ScheduleToken, ScheduleView } from "../../api/resources/schedule-types";
import { LIST_LIMIT_DEFAULT } from "../../api/schemas/subject/inbox-schemas";
import type { Issue } from "../../api/schemas/error-schemas";
import { DEFAULT_TIMEZONE, scheduleIssues } from "../../lib/time/cron-schedule";
import { directoryStub, scheduleStub } from "../../durable/schedule/schedule-stub";
import type { AppEnv } from "../app-env";
import { invalidRequest, validationHook } from "../errors";
import { prepareTemplate } from "../intake/schedule-template";
import { runBodyHookAt } from "../agents/run-body-hook";
import { createScheduleWholeRunSchema, updateScheduleWholeRunSchema } from "../../api/schemas/subject/schedule-schemas";
import { unwrap } from "../outcome";
import { newScheduleId } from "../ids/schedule-ids";
import { decodeCursor, encodeCursor } from "./runs/cursor";
import { createScheduleRoute, deleteScheduleRoute, getScheduleRoute, listSchedulesRoute, triggerScheduleRoute, updateScheduleRoute } from "./definitions/schedule-routes";

/** The clock's issues at `cron` and `timezone` (a bad pattern, an unknown zone, fires too close together). */
function clockIssues(c: Context<AppEnv>, cron: string, timezone: string): Issue[] {
  return scheduleIssues(cron, timezone, c.var.settings.limits.scheduleMinSeconds, Date.now());
}

/** The subject a new schedule is for: a user token's own; the deployment token's `subject`, or its run's. */
function subjectOf(c: Context<AppEnv>, subject: string | undefined, runSubject: string | undefined): string | undefined {
  const creator = c.var.creator;
  if (creator.kind === "user") {
    if (subject !== undefined && subject !== creator.subject) throw invalidRequest("Invalid request body.", [{ path: "subject", message: "A user token's schedules belong to its own subject." }]);
    return creator.subject;
  }
  if (subject !== undefined && runSubject !== undefined && subject !== runSubject) {
    throw invalidRequest("Invalid request body.", [{ path: "run.subject", message: "Differs from the schedule's subject; give one of them." }]);
  }
  return subject ?? runSubject;
}

/** The user token a request comes with (its id and expiry), or null for the deployment token. */
function tokenOf(c: Context<AppEnv>): ScheduleToken | null {
  if (c.var.caller !== "user") return null;
  const { tokenId, expiresAt } = c.var.user;
  return tokenId === undefined ? { expiresAt } : { id: tokenId, expiresAt };
}

export function schedulesApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(createScheduleRoute, async (c) => {
    const body = c.req.valid("json");
    const timezone = body.timezone ?? DEFAULT_TIMEZONE;
    const issues = clockIssues(c, body.cron, timezone);
    if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
    const subject = subjectOf(c, body.subject, body.run.subject);
    const template = await prepareTemplate({ run: body.run, subject, env: c.env, settings: c.var.settings, creator: c.var.creator, origin: new URL(c.req.url).origin });
    const schedule: NewSchedule = {
      id: await newScheduleId(c.var.settings.runIdKeys[0]!),
      cron: body.cron,
      timezone,
      overlap: body.overlap ?? "skip",
      catchUp: body.catchUp ?? "one",
      paused: body.paused ?? false,
      template,
      createdAt: new Date().toISOString(),
    };
    if (subject !== undefined) schedule.subject = subject;
    // A user token's schedule fires under it: revoked or expired, the schedule pauses itself (src/durable/schedule).
    const token = tokenOf(c);
    if (token !== null) schedule.token = token;
    // The directory first: a crash before the schedule exists leaves an entry that listings skip, never a schedule no listing shows.
    // A subject holds at most SCHEDULES_PER_SUBJECT schedules (counted by its directory); the deployment's own have no cap.
    unwrap(await directoryStub(c.env, subject).add({ id: schedule.id, createdAt: schedule.createdAt }, subject === undefined ? undefined : c.var.settings.limits.schedulesPerSubject));
    const view = unwrap(await scheduleStub(c.env, schedule.id).create(schedule));
    return c.json({ schedule: view }, 201);
  }, runBodyHookAt("run", createScheduleWholeRunSchema));

  app.openapi(listSchedulesRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const subject: string | undefined = c.var.subject;
    let after: ListPosition | undefined;
    if (cursor !== undefined) {
      after = decodeCursor(cursor);
      if (after === undefined) throw invalidRequest("Invalid request query.", [{ path: "cursor", message: "Not a cursor this API gave." }]);
    }
    const directory = directoryStub(c.env, subject);
    const page = await directory.list(limit === undefined ? LIST_LIMIT_DEFAULT : Number(limit), after);
    const views = await Promise.all(page.entries.map(async (entry) => ({ entry, outcome: await scheduleStub(c.env, entry.id).view() })));
    const schedules: ScheduleView[] = [];
    for (const { entry, outcome } of views) {
      if (outcome.ok) schedules.push(outcome.value);
      // An entry whose schedule is gone (a crash between the two writes of a create or a delete).
      else await directory.remove(entry.id);
    }
    return c.json(page.next === undefined ? { schedules } : { schedules, nextCursor: encodeCursor(page.next) }, 200);
  });

  app.openapi(getScheduleRoute, async (c) => c.json({ schedule: unwrap(await c.var.schedule.view()) }, 200));

  app.openapi(updateScheduleRoute, async (c) => {
    const body = c.req.valid("json");
    const current = unwrap(await c.var.schedule.view());
    const patch: SchedulePatch = {};
    if (body.cron !== undefined || body.timezone !== undefined) {
      const cron = body.cron ?? current.cron;
      const timezone = body.timezone ?? current.timezone;
      const issues = clockIssues(c, cron, timezone);
      if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
      patch.cron = cron;
      patch.timezone = timezone;
    }
    if (body.run !== undefined) {
      if (body.run.subject !== undefined && body.run.subject !== current.subject) {
        throw invalidRequest("Invalid request body.", [{ path: "run.subject", message: "A schedule's runs are its subject's; its subject does not change." }]);
      }
      patch.template = await prepareTemplate({ run: body.run, subject: current.subject, env: c.env, settings: c.var.settings, creator: c.var.creator, origin: new URL(c.req.url).origin });
    }
    if (body.overlap !== undefined) patch.overlap = body.overlap;
    if (body.catchUp !== undefined) patch.catchUp = body.catchUp;
    if (body.paused !== undefined) patch.paused = body.paused;
    // A resume fires under the resumer: this user token, or (the deployment's) none.
    if (body.paused === false) patch.resumedBy = tokenOf(c);
    return c.json({ schedule: unwrap(await c.var.schedule.update(patch)) }, 200);
  }, runBodyHookAt("run", updateScheduleWholeRunSchema));

  app.openapi(deleteScheduleRoute, async (c) => {
    const current = unwrap(await c.var.schedule.view());
    unwrap(await c.var.schedule.remove());
    await directoryStub(c.env, current.subject).remove(c.var.scheduleId);
    return c.body(null, 204);
  });

  // The trigger's run is held to the triggering token's daily limit (its budgetUsdPerDay, else the subject's).
  app.openapi(triggerScheduleRoute, async (c) => {
    const creator = c.var.creator;
    const dayLimitUsd = creator.kind === "user" && creator.budgetUsdPerDay !== undefined ? creator.budgetUsdPerDay : c.var.settings.limits.subjectBudgetUsdPerDay;
    return c.json(unwrap(await c.var.schedule.trigger({ dayLimitUsd })), 201);
  });

  return app;
}
