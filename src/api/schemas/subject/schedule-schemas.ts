// The zod schemas of schedules (docs/api.md, docs/schedules.md). Bodies a client sends are strict,
// as in ../runs/create-run-schemas.ts; the types they infer are checked against ../../resources/schedule-types.ts at the bottom.
import { z } from "@hono/zod-openapi";
import { runSummarySchema } from "./inbox-schemas";
import { runRequestBodySchema } from "../agents/agent-schemas";
import { createRunBodySchema } from "../runs/create-run-schemas";
import { runViewSchema } from "../runs/run-view-schemas";
import { subjectSchema } from "../../rules/subject";
import type * as Api from "../../resources/schedule-types";

export const overlapSchema = z.enum(["skip", "queue", "allow"]);
export const catchUpSchema = z.enum(["one", "none"]);

const cronSchema = z
  .string()
  .min(1)
  .max(256)
  .openapi({ description: "Five fields (minute hour day-of-month month day-of-week) or six (seconds first); fires at most every SCHEDULE_MIN_SECONDS.", example: "0 8 * * 1-5" });
const timezoneSchema = z.string().min(1).max(64).openapi({ description: "An IANA time zone name. Default UTC.", example: "Europe/Paris" });
const overlapField = overlapSchema.openapi({ description: 'While the previous run is still running or waiting: "skip" the fire (default), "queue" it (it starts when that run ends), or "allow" it.' });
const catchUpField = catchUpSchema.openapi({ description: 'After downtime: "one" run for all the missed fires (default), or "none".' });
const pausedField = z.boolean().openapi({ description: "A paused schedule does not fire (a trigger still does). Default false." });

export const createScheduleBodySchema = z
  .strictObject({
    cron: cronSchema,
    timezone: timezoneSchema.optional(),
    run: runRequestBodySchema.openapi({ description: "The run each fire starts: a POST /v1/runs body (or a stored agent: its version now is pinned), checked as POST /v1/runs checks it (no images)." }),
    overlap: overlapField.optional(),
    catchUp: catchUpField.optional(),
    subject: subjectSchema.optional().openapi({ description: "The subject whose runs the schedule starts: set by the deployment token (or as run.subject); a user token's own." }),
    paused: pausedField.optional(),
  })
  .openapi("CreateScheduleBody");

export type CreateScheduleInput = z.infer<typeof createScheduleBodySchema>;

/** The same bodies with a whole run: what a refusal of a body whose run names no agent is read by (src/http/agents/run-body-hook.ts). */
export const createScheduleWholeRunSchema = createScheduleBodySchema.extend({ run: createRunBodySchema });


export const updateScheduleBodySchema = z
  .strictObject({
    cron: cronSchema.optional(),
    timezone: timezoneSchema.optional(),
    run: runRequestBodySchema.optional().openapi({ description: "A new run for the fires to start (or a stored agent: its version now is pinned), checked again (with the caller's rights)." }),
    overlap: overlapField.optional(),
    catchUp: catchUpField.optional(),
    paused: pausedField.optional(),
  })
  .openapi("UpdateScheduleBody");

export type UpdateScheduleInput = z.infer<typeof updateScheduleBodySchema>;

export const updateScheduleWholeRunSchema = updateScheduleBodySchema.extend({ run: createRunBodySchema.optional() });

export const scheduleFireSchema = z
  .object({
    at: z.string().openapi({ description: "The fire time (a missed record: the first fire missed)." }),
    kind: z.enum(["cron", "trigger"]),
    outcome: z.enum(["pending", "started", "skipped", "queued", "failed", "missed"]),
    runId: z.string().optional(),
    reason: z.string().optional().openapi({ description: "Why the fire was skipped, failed or missed." }),
    missed: z.number().int().optional().openapi({ description: "A missed record: how many fires; a started run (catchUp one): the missed fires it stands for." }),
    through: z.string().optional().openapi({ description: "A missed record: the last fire missed." }),
  })
  .openapi("ScheduleFire");

export const scheduleViewSchema = z
  .object({
    id: z.string(),
    cron: z.string(),
    timezone: z.string(),
    overlap: overlapSchema,
    catchUp: catchUpSchema,
    paused: z.boolean(),
    pausedReason: z
      .enum(["token-revoked", "token-expired"])
      .optional()
      .openapi({ description: "Why the schedule paused itself: the user token that made it (or last resumed it) was revoked or expired. Only a new token of the subject, or the deployment token, resumes it (paused: false). Absent otherwise." }),
    subject: z.string().optional(),
    run: z.record(z.string(), z.unknown()).openapi({ description: "The run each fire starts: a CreateRunBody as checked (defaults filled in; MCP servers' headers left out, in agent templates too)." }),
    nextAt: z.string().optional().openapi({ description: "The next fire time; absent while paused." }),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastRuns: z.array(runSummarySchema).openapi({ description: "The schedule's newest runs (at most 5), newest first." }),
    fires: z.array(scheduleFireSchema).openapi({ description: "The newest fire records (at most 20), newest first." }),
  })
  .openapi("ScheduleView");

export const scheduleAnswerSchema = z.object({ schedule: scheduleViewSchema }).openapi("ScheduleAnswer");

export const schedulesPageSchema = z
  .object({
    schedules: z.array(scheduleViewSchema),
    nextCursor: z.string().optional().openapi({ description: "Send as ?cursor= for the next page; absent on the last page." }),
  })
  .openapi("SchedulesPage");

export const triggeredRunSchema = z.object({ run: runViewSchema }).openapi("TriggeredRun");

// ---------------------------------------------------------------------------------------------
// Compile-time checks: what the schemas let through is what ../../resources/schedule-types.ts describes.

type Assignable<From, To> = [From] extends [To] ? true : false;
type Check<T extends true> = T;

export type ScheduleSchemaChecks = [
  Check<Assignable<z.infer<typeof scheduleFireSchema>, Api.ScheduleFire>>,
  Check<Assignable<Api.ScheduleFire, z.infer<typeof scheduleFireSchema>>>,
  Check<Assignable<Omit<Api.ScheduleView, "run">, Omit<z.infer<typeof scheduleViewSchema>, "run">>>,
  Check<Assignable<Omit<z.infer<typeof scheduleViewSchema>, "run">, Omit<Api.ScheduleView, "run">>>,
];
