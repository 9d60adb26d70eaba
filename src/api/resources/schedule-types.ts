// Types of the schedules API (docs/api.md, docs/schedules.md), shared by the edge, the schedule
// objects and clients. ../schemas/subject/schedule-schemas.ts validates exactly these shapes.
import type { CreateRunBody, RunSummary, RunView } from "../types.ts";

/** What a fire does while the schedule's previous run is still running or waiting. */
export type Overlap = "skip" | "queue" | "allow";

/** After downtime: one run for all the fires missed (`one`), or none (`none`). */
export type CatchUp = "one" | "none";

/** What became of one fire (or, for `missed`, of a range of fires missed during downtime). */
export type FireOutcome = "pending" | "started" | "skipped" | "queued" | "failed" | "missed";

/** One record of the schedule's fires, newest first in its view. */
export type ScheduleFire = {
  /** The fire time (for a `missed` record, the first fire missed). */
  at: string;
  /** `cron`: a fire of the schedule; `trigger`: POST /v1/schedules/{id}/trigger. */
  kind: "cron" | "trigger";
  outcome: FireOutcome;
  /** The run this fire made (started), or will make (pending, queued: not yet). */
  runId?: string;
  /** Why a fire was skipped, failed or missed. */
  reason?: string;
  /** A `missed` record: how many fires it stands for; a started run under catchUp `one`: the missed fires it stands for too. */
  missed?: number;
  /** A `missed` record: the last fire missed. */
  through?: string;
};

/** What a schedule is, wherever it is held: the view, the object's row, a new schedule. */
export type ScheduleSettings = {
  id: string;
  cron: string;
  timezone: string;
  overlap: Overlap;
  catchUp: CatchUp;
  paused: boolean;
  subject?: string;
};

/** Why a schedule paused itself: the user token that made it (or last resumed it) was revoked, or expired. */
export type PausedReason = "token-revoked" | "token-expired";

/** The user token a schedule fires under: made or last resumed with it; `id` absent on tokens minted before ids existed. */
export type ScheduleToken = { id?: string; expiresAt: number };

export type ScheduleView = ScheduleSettings & {
  /** Set while the schedule is paused because its user token was revoked or expired: only a new token of the subject, or the deployment, resumes it. */
  pausedReason?: PausedReason;
  /** The run each fire starts: a POST /v1/runs body, as checked (defaults filled in; MCP servers' headers left out at any depth: redactBody). */
  run: CreateRunBody;
  /** The next fire time; absent while paused. */
  nextAt?: string;
  createdAt: string;
  updatedAt: string;
  /** The schedule's newest runs (at most 5), newest first, as the run listing shows them. */
  lastRuns: RunSummary[];
  /** The newest fire records (at most 20), newest first. */
  fires: ScheduleFire[];
};

/** GET /v1/schedules: one page, newest first; `nextCursor` fetches the next one. */
export type SchedulesPage = { schedules: ScheduleView[]; nextCursor?: string };

/** POST /v1/schedules/{id}/trigger: the run made now. */
export type TriggeredRun = { run: RunView };

/** The one answer to an unknown schedule, a deleted one, and a user token on another subject's. */
export const SCHEDULE_NOT_FOUND = "Schedule not found.";
