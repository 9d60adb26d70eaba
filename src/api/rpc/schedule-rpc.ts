// The calls made on a schedule's object and on the directory of schedules (Durable Object RPC): by
// the HTTP edge, which creates, reads, changes, triggers and deletes schedules and lists their
// runs, and by run objects, whose outboxes report each run's status changes to its schedule.
import type { InboxChange, ListAnswer, ListPosition, ListQuery } from "./inbox-rpc";
import type { CatchUp, Overlap, ScheduleSettings, ScheduleToken, ScheduleView, TriggeredRun } from "../resources/schedule-types";
import type { AgentOfRun, CreateRunBody, Outcome, ProviderName } from "../types";
import type { AgentProvider } from "../resources/agent-types";

/**
 * What a fire needs to create its run, checked by the edge against the deployment when the
 * schedule's run was set (src/http/intake/schedule-template.ts) and again at each fire: a NewRun without the id, the
 * token and the hashes, which each fire derives from the schedule and its fire time.
 */
export type RunTemplate = {
  body: CreateRunBody;
  model: string;
  provider: ProviderName;
  subject?: string;
  dayLimitUsd?: number;
  origin?: string;
  /** Who set it: each fire is admitted again with this caller's rights (src/intake/admit-run.ts); a template stored before it was kept has its settings checked only. */
  creator?: "deployment" | "user";
  /**
   * A run of a stored agent (docs/agents.md): the version resolved when the schedule's run was set,
   * pinned, with that version's template, provider and model, which each fire gives the intake as
   * its source (what the agent's template holds was admitted for the deployment when it was made).
   * A version whose provider is "default" takes the deployment's provider at each fire.
   */
  agent?: AgentOfRun & { template: Omit<CreateRunBody, "messages">; provider: AgentProvider; model: string };
};

export type NewSchedule = ScheduleSettings & {
  template: RunTemplate;
  /** When the edge took the request (ISO): the schedule's createdAt, and its place in its owner's directory. */
  createdAt: string;
  /** Made by a user token: the schedule pauses itself when that token is revoked or expires. */
  token?: ScheduleToken;
};

/** The fields a PATCH changes; a changed cron or time zone counts fires from the change on. */
export type SchedulePatch = {
  cron?: string;
  timezone?: string;
  overlap?: Overlap;
  catchUp?: CatchUp;
  paused?: boolean;
  template?: RunTemplate;
  /** Who asks: a resume binds the schedule to this user token (null: the deployment's, no token). */
  resumedBy?: ScheduleToken | null;
};

/** Who triggers: the daily spend limit the trigger's run is held to (the triggering user token's, else the subject's). */
export type TriggerBy = { dayLimitUsd: number };

export interface ScheduleRpc {
  /** Stores the schedule and sets its alarm; 409 for an id already used. */
  create(schedule: NewSchedule): Promise<Outcome<ScheduleView>>;
  view(): Promise<Outcome<ScheduleView>>;
  update(patch: SchedulePatch): Promise<Outcome<ScheduleView>>;
  /** Deletes the schedule (its alarm, its fires and its index of runs); its runs stay. */
  remove(): Promise<Outcome<null>>;
  /** One run now, whatever the overlap and even while paused: 201, or the refusal of the run's creation (402, …). */
  trigger(by?: TriggerBy): Promise<Outcome<TriggeredRun>>;
  /** True when the schedule exists and belongs to `subject` (a user token's access). */
  authorizeSubject(subject: string): Promise<boolean>;
  /** The schedule's runs in the run listing's shape, newest first. */
  listRuns(query: ListQuery): Promise<Outcome<ListAnswer>>;
  /** A run's status changes (from its outbox), applied when newer than what the index holds. */
  apply(scheduleId: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>>;
}

/** A page of the directory: schedule ids, newest first, and where the next page starts. */
export type DirectoryPage = { entries: ListPosition[]; next?: ListPosition };

/** The schedules of one owner (a subject, or the deployment for those without one), newest first. */
export interface ScheduleDirectoryRpc {
  /** Adds an entry; with `limit` (a subject's SCHEDULES_PER_SUBJECT), 409 when the owner already holds that many. */
  add(entry: ListPosition, limit?: number): Promise<Outcome<null>>;
  remove(id: string): Promise<null>;
  list(limit: number, after?: ListPosition): Promise<DirectoryPage>;
}
