// One schedule per object: its clock and rules, the run its fires start, its fires and the index
// of its runs, all in SQLite, and one alarm set for whatever comes next (the next fire time, a fire
// whose run is still to be created, a queued fire to look at again). The platform hooks stay thin:
// the decisions are pure (./fire-plan.ts, ./overlap.ts, src/lib/time/cron-schedule.ts) and each fire's
// run is created by ./fire-run.ts, exactly once per fire time.
//
// A fire is recorded `pending` before its run is created and settled once the run object answered:
// a crash in between leaves the pending row, which the next alarm finishes with the same key, and
// so the same run. A refusal (the subject's spend limit, …) settles it `failed` with the reason,
// never retried; an unreachable run object is tried again, FIRE_ATTEMPTS times at most.
//
// A schedule a user token made fires under that token: at each alarm, before any fire, the object
// looks at the token's expiry and asks the subject's inbox whether it was revoked (the inbox keeps
// revocations as long as a token can live). Revoked or expired, the schedule pauses itself with
// `pausedReason` and settles its queued fires skipped; only a resume by a new token of the subject
// (which the schedule then fires under) or by the deployment token (no token from then on) starts
// it again. Checked at the fire, not at the revocation: nothing fans out to a subject's schedules,
// and a crash between a revocation and a pause cannot leave a schedule firing.
import { DurableObject } from "cloudflare:workers";
import type { InboxChange, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import type { NewSchedule, SchedulePatch, ScheduleRpc, TriggerBy } from "../../api/rpc/schedule-rpc";
import { SCHEDULE_NOT_FOUND, type PausedReason, type ScheduleView, type TriggeredRun } from "../../api/resources/schedule-types";
import { limitsOf } from "../../config/settings";
import { inboxStub } from "../inbox/inbox-stub";
import type { Outcome } from "../../api/types";
import { dueFires, nextFire } from "../../lib/time/cron-schedule";
import { fail, ok } from "../run/outcome";
import { isoNow } from "../storage/clock";
import { countAttempt, firesIn, insertFire, newestRunIds, noteAttemptError, readFire, settleFire } from "./fire-store";
import { planFires } from "./fire-plan";
import { createFireRun, runOf } from "./fire-run";
import { overlapDecision } from "./overlap";
import { applyRunChanges, indexStartedRun, knownEnded, listIndexedRuns, trimRunIndex } from "./run-index-store";
import { dropSchedule, hasSchedule, insertSchedule, migrateSchedule, readSchedule, readTemplate, setNextAt, updateSchedule, wasDeleted, writeTemplate, type ScheduleChange, type ScheduleRow } from "./schedule-store";
import { scheduleViewOf } from "./schedule-view";

/** Attempts to reach a fire's run object before the fire is failed. */
export const FIRE_ATTEMPTS = 5;
/** A fire whose run object could not be reached is tried again this long after. */
export const PENDING_RETRY_MS = 10_000;
/** A queued fire is woken by its previous run's end (the run's outbox); it is also looked at this often. */
export const QUEUED_CHECK_MS = 5 * 60_000;
/** The newest runs the overlap looks at for one still running or waiting. */
const PREVIOUS_RUNS_CHECKED = 10;
const DAY_MS = 24 * 3600 * 1000;

const notFound = () => fail(404, SCHEDULE_NOT_FOUND);

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** What became of an attempt to create a fire's run. */
type StartAnswer = { kind: "started"; outcome: Outcome<TriggeredRun> } | { kind: "refused"; outcome: Outcome<TriggeredRun> } | { kind: "unreachable"; error: unknown } | { kind: "none" };

export class ScheduleObject extends DurableObject<Env> implements ScheduleRpc {
  /** The schedule's clock, in ms since the epoch: tests set it to drive fire times. */
  now: () => number = () => Date.now();
  /** Alarms, triggers and changes run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Existing schedules get any new tables; an object that holds none stays empty.
    if (hasSchedule(ctx.storage.sql)) migrateSchedule(ctx.storage.sql);
  }

  private get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private viewNow(): ScheduleView | undefined {
    const row = readSchedule(this.sql);
    return row === undefined ? undefined : scheduleViewOf(this.sql, row, readTemplate(this.sql));
  }

  async create(schedule: NewSchedule): Promise<Outcome<ScheduleView>> {
    return this.exclusive(async () => {
      if (hasSchedule(this.sql) || wasDeleted(this.sql)) return fail(409, "This schedule id is taken.");
      const { template, ...rest } = schedule;
      this.ctx.storage.transactionSync(() => {
        migrateSchedule(this.sql, this.now());
        // Fires count from now: a new schedule has missed nothing.
        insertSchedule(this.sql, { ...rest, lastAt: this.now(), updatedAt: rest.createdAt }, template);
      });
      await this.arm();
      return ok(this.viewNow()!);
    });
  }

  async view(): Promise<Outcome<ScheduleView>> {
    const view = this.viewNow();
    return view === undefined ? notFound() : ok(view);
  }

  async authorizeSubject(subject: string): Promise<boolean> {
    return readSchedule(this.sql)?.subject === subject;
  }

  async update(patch: SchedulePatch): Promise<Outcome<ScheduleView>> {
    return this.exclusive(async () => {
      const row = readSchedule(this.sql);
      if (row === undefined) return notFound();
      const { template, resumedBy, ...fields } = patch;
      const change: ScheduleChange = { ...fields };
      const clockChanged = (fields.cron !== undefined && fields.cron !== row.cron) || (fields.timezone !== undefined && fields.timezone !== row.timezone);
      const resumed = row.paused && fields.paused === false;
      // A resume fires under whoever resumed: a new user token of the subject, or the deployment (no token).
      if (resumed) {
        change.pausedReason = null;
        if (resumedBy !== undefined) change.token = resumedBy;
      }
      if (fields.paused === true) change.pausedReason = null;
      // A new clock, or a resume, counts fires from now: what the old clock or the pause left out is not missed.
      if (clockChanged || resumed) change.lastAt = Math.max(row.lastAt, this.now());
      this.ctx.storage.transactionSync(() => {
        updateSchedule(this.sql, change, isoNow());
        if (template !== undefined) writeTemplate(this.sql, template);
      });
      await this.arm();
      return ok(this.viewNow()!);
    });
  }

  async remove(): Promise<Outcome<null>> {
    return this.exclusive(async () => {
      if (!hasSchedule(this.sql)) return notFound();
      this.ctx.storage.transactionSync(() => dropSchedule(this.sql, isoNow()));
      await this.ctx.storage.deleteAlarm();
      return ok(null);
    });
  }

  async trigger(by?: TriggerBy): Promise<Outcome<TriggeredRun>> {
    return this.exclusive(async () => {
      if (!hasSchedule(this.sql)) return notFound();
      // The run is held to the triggering token's daily limit, not to the one the schedule was made with.
      const key = insertFire(this.sql, { kind: "trigger", at: this.now(), outcome: "pending", ...(by === undefined ? {} : { dayLimitUsd: by.dayLimitUsd }) });
      // Should this object die before the run object answers, the alarm finishes the fire.
      await this.arm();
      const answer = await this.startFire(key);
      await this.arm();
      if (answer.kind === "started" || answer.kind === "refused") return answer.outcome;
      if (answer.kind === "unreachable") throw answer.error;
      return fail(409, "This fire was already settled.");
    });
  }

  async listRuns(query: ListQuery): Promise<Outcome<ListAnswer>> {
    if (!hasSchedule(this.sql)) return notFound();
    return ok(listIndexedRuns(this.sql, query));
  }

  /**
   * A run's status changes, delivered by its outbox at least once: applied when newer than the
   * index holds. A change from a run of a deleted schedule is taken and dropped (nothing is left to
   * index). When a run ends and a fire is queued, the alarm is set to start it.
   */
  async apply(scheduleId: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>> {
    const row = readSchedule(this.sql);
    if (row === undefined) return ok({ applied: 0 });
    if (row.id !== scheduleId) return fail(409, "These changes belong to another schedule.");
    const now = this.now();
    const { applied, ended } = this.ctx.storage.transactionSync(() => {
      const answer = applyRunChanges(this.sql, changes, now);
      trimRunIndex(this.sql, now - limitsOf(this.env).retentionDays * DAY_MS);
      return answer;
    });
    if (ended.length > 0 && firesIn(this.sql, "queued").length > 0) await this.setAlarmAt(this.now());
    return ok({ applied });
  }

  /**
   * Finishes the fires a crash or an unreachable run object left pending, starts a queued fire
   * whose previous run has ended, then deals with the fires that came due. Never throws: a failure
   * is logged, and the alarm is always set again (an alarm that throws is retried a few times by
   * the platform, then dropped, and the schedule would stop).
   */
  override async alarm(_info?: AlarmInvocationInfo): Promise<void> {
    await this.exclusive(async () => {
      if (!hasSchedule(this.sql)) return;
      try {
        for (const fire of firesIn(this.sql, "pending")) await this.startFire(fire.key);
        await this.pauseIfTokenLapsed();
        if (readSchedule(this.sql)!.pausedReason === undefined) await this.startQueued();
        const row = readSchedule(this.sql)!;
        if (!row.paused) await this.fireDue(row, this.now());
        this.ctx.storage.transactionSync(() => trimRunIndex(this.sql, this.now() - limitsOf(this.env).retentionDays * DAY_MS));
      } catch (error) {
        console.error(JSON.stringify({ msg: "ratchet.schedule-error", scheduleId: readSchedule(this.sql)?.id, error: describe(error) }));
      } finally {
        await this.arm();
      }
    });
  }

  /** Why the user token the schedule fires under no longer holds (expired, revoked), or undefined while it does or there is none. */
  private async tokenLapse(): Promise<PausedReason | undefined> {
    const row = readSchedule(this.sql)!;
    if (row.token === undefined) return undefined;
    if (this.now() >= row.token.expiresAt) return "token-expired";
    if (row.token.id !== undefined && row.subject !== undefined && (await inboxStub(this.env, row.subject).isRevoked(row.token.id))) return "token-revoked";
    return undefined;
  }

  /** Before any fire: a schedule whose token lapsed pauses itself, and its queued fires are skipped. */
  private async pauseIfTokenLapsed(): Promise<void> {
    const row = readSchedule(this.sql)!;
    if (row.pausedReason !== undefined) return;
    const lapse = await this.tokenLapse();
    if (lapse === undefined) return;
    const reason = lapse === "token-expired" ? "The user token that made the schedule expired." : "The user token that made the schedule was revoked.";
    this.ctx.storage.transactionSync(() => {
      updateSchedule(this.sql, { paused: true, pausedReason: lapse }, isoNow());
      for (const fire of firesIn(this.sql, "queued")) settleFire(this.sql, fire.key, "skipped", { reason });
    });
  }

  /** The fires due since the schedule last looked: missed ones recorded, the one that fires decided by the overlap. */
  private async fireDue(row: ScheduleRow, now: number): Promise<void> {
    const due = dueFires(row.cron, row.timezone, row.lastAt, now);
    if (due === undefined) return;
    const plan = planFires(due, now, row.catchUp);
    const decision = plan.fireAt === undefined ? undefined : overlapDecision(row.overlap, row.overlap !== "allow" && (await this.previousActive()), firesIn(this.sql, "queued").length > 0);
    const started = this.ctx.storage.transactionSync(() => {
      const { missed } = plan;
      if (missed !== undefined) {
        const count = `${missed.atLeast ? "at least " : ""}${missed.count}`;
        insertFire(this.sql, { kind: "cron", at: missed.first, outcome: "missed", missed: missed.count, through: missed.through, reason: `${count} fire${missed.count === 1 ? "" : "s"} missed while the schedule was not running.` });
      }
      let key: string | undefined;
      if (plan.fireAt !== undefined && decision !== undefined) {
        const outcome = decision.action === "start" ? "pending" : decision.action === "queue" ? "queued" : "skipped";
        const standsFor = row.catchUp === "one" && missed !== undefined ? { missed: missed.count } : {};
        key = insertFire(this.sql, { kind: "cron", at: plan.fireAt, outcome, ...standsFor, ...(decision.action === "skip" ? { reason: decision.reason } : {}) });
        if (decision.action !== "start") key = undefined;
      }
      updateSchedule(this.sql, { lastAt: due.latest }, row.updatedAt);
      return key;
    });
    if (started === undefined) return;
    await this.arm();
    await this.startFire(started);
  }

  /** A queued fire starts once no earlier run of the schedule is running or waiting. */
  private async startQueued(): Promise<void> {
    const queued = firesIn(this.sql, "queued")[0];
    if (queued === undefined || (await this.previousActive())) return;
    settleFire(this.sql, queued.key, "pending");
    await this.startFire(queued.key);
  }

  /**
   * Whether one of the schedule's newest runs is still running or waiting. The index (fed by the
   * runs' outboxes) knows which have ended; any other is asked, since its outbox may lag. A run
   * that cannot be asked counts as still going: a fire is skipped or queued rather than doubled.
   */
  private async previousActive(): Promise<boolean> {
    for (const runId of newestRunIds(this.sql, PREVIOUS_RUNS_CHECKED)) {
      if (knownEnded(this.sql, runId)) continue;
      try {
        const outcome = await runOf(this.env, runId).view();
        if (outcome.ok && (outcome.value.status === "running" || outcome.value.status === "waiting")) return true;
      } catch {
        return true;
      }
    }
    return false;
  }

  /** Creates the run of the pending fire `key` (or finds the one a first attempt made) and settles the fire. */
  private async startFire(key: string): Promise<StartAnswer> {
    const fire = readFire(this.sql, key);
    if (fire === undefined || fire.outcome !== "pending") return { kind: "none" };
    // Counted (and committed) before the attempt, so a fire that keeps killing its object ends too.
    const attempt = countAttempt(this.sql, key);
    const scheduleId = readSchedule(this.sql)!.id;
    let answer: Awaited<ReturnType<typeof createFireRun>>;
    try {
      const template = readTemplate(this.sql);
      // A trigger's run is held to the triggering token's limit (fires of older releases kept none: the template's).
      if (fire.dayLimitUsd !== undefined) template.dayLimitUsd = fire.dayLimitUsd;
      answer = await createFireRun(this.env, scheduleId, template, key, fire.at);
    } catch (error) {
      if (attempt >= FIRE_ATTEMPTS) this.failFire(scheduleId, key, fire.at, `The run could not be created: ${describe(error)}`);
      else noteAttemptError(this.sql, key, describe(error));
      return { kind: "unreachable", error };
    }
    const { runId, outcome } = answer;
    if (outcome.ok) {
      this.ctx.storage.transactionSync(() => {
        settleFire(this.sql, key, "started", { runId });
        indexStartedRun(this.sql, outcome.value, this.now());
      });
      return { kind: "started", outcome: ok({ run: outcome.value }) };
    }
    if (outcome.status === 409) {
      // The fire's run exists and was changed since (its token replaced, or it was deleted): it is still this fire's run.
      settleFire(this.sql, key, "started", { runId });
      return { kind: "refused", outcome };
    }
    this.failFire(scheduleId, key, fire.at, `${outcome.error.code}: ${outcome.error.message}`);
    return { kind: "refused", outcome };
  }

  private failFire(scheduleId: string, key: string, at: number, reason: string): void {
    settleFire(this.sql, key, "failed", { reason });
    console.error(JSON.stringify({ msg: "ratchet.schedule-fire-failed", scheduleId, firedAt: new Date(at).toISOString(), reason }));
  }

  /**
   * Sets the alarm for what comes next: a pending fire soon, a queued one now and then, the next
   * fire time (while not paused). Each is delayed by ALARM_DELAY_MS, which only tests set (they
   * fire alarms by hand). The next fire time is kept for the view.
   */
  private async arm(): Promise<void> {
    const row = readSchedule(this.sql);
    if (row === undefined) return this.ctx.storage.deleteAlarm();
    const now = this.now();
    const nextAt = row.paused ? undefined : nextFire(row.cron, row.timezone, row.lastAt);
    setNextAt(this.sql, nextAt);
    const candidates: number[] = [];
    if (nextAt !== undefined) candidates.push(nextAt);
    if (firesIn(this.sql, "pending").length > 0) candidates.push(now + PENDING_RETRY_MS);
    if (firesIn(this.sql, "queued").length > 0) candidates.push(now + QUEUED_CHECK_MS);
    if (candidates.length === 0) return this.ctx.storage.deleteAlarm();
    await this.setAlarmAt(Math.min(...candidates));
  }

  private setAlarmAt(at: number): Promise<void> {
    return this.ctx.storage.setAlarm(at + (Number(this.env.ALARM_DELAY_MS) || 0));
  }
}
