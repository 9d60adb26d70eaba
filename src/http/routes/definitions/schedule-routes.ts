// The routes of /v1/schedules as OpenAPI route configs: the same objects validate requests and
// write the OpenAPI document. Paths are relative to the /v1/schedules mount.
import { createRoute, z } from "@hono/zod-openapi";
import { CURSOR_PATTERN, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../../../api/schemas/subject/inbox-schemas";
import { createScheduleBodySchema, scheduleAnswerSchema, schedulesPageSchema, triggeredRunSchema, updateScheduleBodySchema } from "../../../api/schemas/subject/schedule-schemas";
import { subjectSchema } from "../../../api/rules/subject";
import { requireSchedule, requireScheduleOwner } from "../../auth/schedule-auth";
import { errors, json } from "./run-routes";

const scheduleParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "sch_abcdefghijklmnopqrstuvwxyz" }),
});

export const listLimitSchema = z
  .string()
  .regex(/^\d{1,3}$/, { message: `Must be a whole number from 1 to ${LIST_LIMIT_MAX}.` })
  .refine((text) => Number(text) >= 1 && Number(text) <= LIST_LIMIT_MAX, { message: `Must be a whole number from 1 to ${LIST_LIMIT_MAX}.` });

export const createScheduleRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Create a schedule: a run started on a clock (deployment token, or a user token: the schedule is its subject's)",
  middleware: [requireScheduleOwner()] as const,
  request: { body: { required: true, content: { "application/json": { schema: createScheduleBodySchema } } } },
  responses: { 201: json(scheduleAnswerSchema, "The schedule, with its next fire time."), ...errors(400, 401, 403, 409, 413, 429) },
});

export const listSchedulesRoute = createRoute({
  method: "get",
  path: "/",
  summary: "Schedules, newest first: a user token's subject's; the deployment token's with `subject=`, or without it those that have no subject",
  middleware: [requireScheduleOwner()] as const,
  request: {
    query: z.strictObject({
      limit: listLimitSchema.optional().openapi({ description: `Schedules per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: z.string().regex(CURSOR_PATTERN, { message: "Not a cursor this API gave." }).optional().openapi({ description: "The nextCursor of the page before." }),
      subject: subjectSchema.optional().openapi({ description: "Deployment token: whose schedules (absent: the schedules without a subject). User token: its own, if given." }),
    }),
  },
  responses: { 200: json(schedulesPageSchema, "A page of schedules."), ...errors(400, 401, 403, 429) },
});

export const getScheduleRoute = createRoute({
  method: "get",
  path: "/{id}",
  summary: "A schedule: its clock, its next fire, its newest fires and runs",
  middleware: [requireSchedule()] as const,
  request: { params: scheduleParams },
  responses: { 200: json(scheduleAnswerSchema, "The schedule."), ...errors(401, 403, 404, 429) },
});

export const updateScheduleRoute = createRoute({
  method: "patch",
  path: "/{id}",
  summary: "Change a schedule: its cron, time zone, run, overlap, catch-up; pause or resume it",
  middleware: [requireSchedule()] as const,
  request: { params: scheduleParams, body: { required: true, content: { "application/json": { schema: updateScheduleBodySchema } } } },
  responses: { 200: json(scheduleAnswerSchema, "The schedule as changed."), ...errors(400, 401, 403, 404, 413, 429) },
});

export const deleteScheduleRoute = createRoute({
  method: "delete",
  path: "/{id}",
  summary: "Delete a schedule (its runs stay)",
  middleware: [requireSchedule()] as const,
  request: { params: scheduleParams },
  responses: { 204: { description: "Deleted; the schedule answers 404 from now on." }, ...errors(401, 403, 404, 429) },
});

export const triggerScheduleRoute = createRoute({
  method: "post",
  path: "/{id}/trigger",
  summary: "Start the schedule's run now, once (whatever its overlap, even while paused)",
  middleware: [requireSchedule({ trigger: true })] as const,
  request: { params: scheduleParams },
  description: "The stored run is admitted again by the one intake, with today's settings and the schedule's creator's rights: one they refuse is not made (400 or 403, issue paths under `run.`; the fire is recorded as failed).",
  responses: { 201: json(triggeredRunSchema, "The run made now."), ...errors(400, 401, 402, 403, 404, 409, 429) },
});
