// A schedule's fires through the whole Worker: each fire makes exactly one run (scheduleId and
// firedAt in its view and summary), overlap (skip, queue, allow), catch-up after downtime (one,
// none), pause and resume, delete, a refusal at fire time (the subject's spend limit), and the
// crash points: between a fire and its record, and between a run's end and its schedule hearing
// of it. The schedule's clock is set and its alarm fired by hand (ALARM_DELAY_MS is a year here).
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertFire, fireKey } from "../../src/durable/schedule/fire-store";
import { createFireRun } from "../../src/durable/schedule/fire-run";
import { readSchedule, readTemplate } from "../../src/durable/schedule/schedule-store";
import { ALREADY_QUEUED, PREVIOUS_ACTIVE } from "../../src/durable/schedule/overlap";
import type { OutboxDeps } from "../../src/durable/outbox/outbox";
import { FIRE_ATTEMPTS, PENDING_RETRY_MS } from "../../src/durable/schedule/schedule-object";
import { deliverOutbox, freshSubject, pendingOutbox, settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { getRun } from "../helpers/service-client";
import { alarmOf, createSchedule, fireAt, getSchedule, patchSchedule, scheduleCall, scheduleRuns, scheduleStubFor, scriptedRun, storedFires } from "../helpers/schedules";
import { TEST_ALARM_DELAY_MS, TEST_API_TOKEN } from "../test-env";

const MINUTE = 60_000;

/** An every-minute schedule of the deployment's, and its first fire time. */
async function everyMinute(extra: Record<string, unknown> = {}): Promise<{ id: string; first: number }> {
  const schedule = await createSchedule({ cron: "* * * * *", run: scriptedRun(), ...extra });
  expect(schedule.nextAt).toBeDefined();
  return { id: schedule.id, first: Date.parse(schedule.nextAt!) };
}

describe("a schedule's fires", () => {
  it("each fire makes one run that carries scheduleId and firedAt, in its view, its summary and the schedule's listing", async () => {
    const { id, first } = await everyMinute({ overlap: "allow" });
    expect(await fireAt(id, first)).toBe(true);
    expect(await fireAt(id, first + MINUTE)).toBe(true);
    const runs = await scheduleRuns(id);
    expect(runs.map((run) => run.firedAt)).toEqual([new Date(first + MINUTE).toISOString(), new Date(first).toISOString()]);
    expect(runs.every((run) => run.scheduleId === id)).toBe(true);
    const view = await getRun(runs[1]!.id, TEST_API_TOKEN);
    expect(view).toMatchObject({ scheduleId: id, firedAt: new Date(first).toISOString(), status: "running" });
    const schedule = await getSchedule(id);
    expect(schedule.nextAt).toBe(new Date(first + 2 * MINUTE).toISOString());
    expect(schedule.lastRuns.map((run) => run.id)).toEqual(runs.map((run) => run.id));
    expect(schedule.fires.map((fire) => [fire.outcome, fire.runId])).toEqual(runs.map((run) => ["started", run.id]));
  });

  it("an alarm that comes again for the same fire time makes no second run", async () => {
    const { id, first } = await everyMinute({ overlap: "allow" });
    await fireAt(id, first);
    // The alarm was set for the next fire; fired early (a platform retry), nothing is due.
    await fireAt(id, first + 1_000);
    expect(await scheduleRuns(id)).toHaveLength(1);
  });

  it("a crash between creating a fire's run and recording it: the next alarm finds the same run, never a second", async () => {
    const { id, first } = await everyMinute({ overlap: "allow" });
    // The state the crash leaves: the fire recorded pending and its run created, nothing settled.
    const made = await runInDurableObject(scheduleStubFor(id), async (_instance, state) => {
      const { sql } = state.storage;
      insertFire(sql, { kind: "cron", at: first, outcome: "pending" });
      sql.exec("UPDATE schedule SET last_at = ?", first);
      return createFireRun(env, readSchedule(sql)!.id, readTemplate(sql), fireKey("cron", first), first);
    });
    expect(made.outcome.ok).toBe(true);
    await abortAllDurableObjects();
    expect(await fireAt(id, first + 5_000)).toBe(true);
    const runs = await scheduleRuns(id);
    expect(runs.map((run) => run.id)).toEqual([made.runId]);
    expect(await storedFires(id)).toEqual([expect.objectContaining({ key: fireKey("cron", first), outcome: "started", run_id: made.runId, attempts: 1 })]);
  });

  it("overlap skip (the default): a fire while the previous run is running or waiting is recorded as skipped", async () => {
    const { id, first } = await everyMinute();
    await fireAt(id, first);
    await fireAt(id, first + MINUTE);
    expect(await scheduleRuns(id)).toHaveLength(1);
    const { fires } = await getSchedule(id);
    expect(fires[0]).toMatchObject({ at: new Date(first + MINUTE).toISOString(), outcome: "skipped", reason: PREVIOUS_ACTIVE });
    // Once the run ended, the next fire starts one.
    await settle((await scheduleRuns(id))[0]!.id);
    await fireAt(id, first + 2 * MINUTE);
    expect(await scheduleRuns(id)).toHaveLength(2);
  });

  it("overlap skip also skips while the previous run waits for an answer", async () => {
    const { id, first } = await everyMinute({ run: scriptedRun({ tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Which?" } }] }] }) });
    await fireAt(id, first);
    const [run] = await scheduleRuns(id);
    await settle(run!.id);
    expect((await getRun(run!.id, TEST_API_TOKEN)).status).toBe("waiting");
    await fireAt(id, first + MINUTE);
    expect(await scheduleRuns(id)).toHaveLength(1);
    expect((await getSchedule(id)).fires[0]!.outcome).toBe("skipped");
  });

  it("overlap queue: a fire waits for the previous run's end, which the run's outbox tells the schedule; one fire waits at most", async () => {
    const { id, first } = await everyMinute({ overlap: "queue" });
    await fireAt(id, first);
    await fireAt(id, first + MINUTE);
    await fireAt(id, first + 2 * MINUTE);
    expect((await getSchedule(id)).fires.map((fire) => fire.outcome)).toEqual(["skipped", "queued", "started"]);
    expect((await getSchedule(id)).fires[0]!.reason).toBe(ALREADY_QUEUED);
    const [firstRun] = await scheduleRuns(id);
    // The run ends; its outbox tells the schedule, which sets its alarm for the queued fire at once
    // (its own clock's now, plus ALARM_DELAY_MS here), not at the next fire time.
    expect(await alarmOf(id)).toBe(first + 3 * MINUTE + TEST_ALARM_DELAY_MS);
    await settle(firstRun!.id);
    expect(await alarmOf(id)).toBe(first + 2 * MINUTE + TEST_ALARM_DELAY_MS);
    expect(await fireAt(id, first + 2 * MINUTE + 10_000)).toBe(true);
    const runs = await scheduleRuns(id);
    expect(runs.map((run) => run.firedAt)).toEqual([new Date(first + MINUTE).toISOString(), new Date(first).toISOString()]);
  });

  it("a crash between a run's end and its schedule hearing of it: the outbox delivers it later, once, and the queued fire starts once", async () => {
    const { id, first } = await everyMinute({ overlap: "queue" });
    await fireAt(id, first);
    await fireAt(id, first + MINUTE);
    const [run] = await scheduleRuns(id);
    // The run ends, but its schedule does not take the change, and then every object dies.
    await runInDurableObject(stubFor(run!.id), (instance) => {
      (instance as unknown as { outbox: { deps: OutboxDeps } }).outbox.deps.sendSchedule = () => Promise.reject(new Error("The schedule is away."));
    });
    const running = stubFor(run!.id);
    while ((await runDurableObjectAlarm(running)) && (await getRun(run!.id, TEST_API_TOKEN)).status === "running");
    await abortAllDurableObjects();
    const stub = stubFor(run!.id);
    expect((await pendingOutbox(stub)).filter((row) => row.channel === "schedule").map((row) => row.type)).toEqual(["run-started", "run-ended"]);
    // Until then, the schedule has not heard: its index still has the run as it started.
    expect((await scheduleRuns(id))[0]!.status).toBe("running");
    // The retry is due (its backoff passes), after the restart; delivered again (a lost answer), it is applied once.
    await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec("UPDATE outbox SET next_at = 0 WHERE channel = 'schedule'"));
    // Delivered after the restart, and again (a lost answer): applied once.
    await deliverOutbox(stub);
    await deliverOutbox(stub);
    expect((await pendingOutbox(stub)).filter((row) => row.channel === "schedule")).toEqual([]);
    expect((await scheduleRuns(id))[0]!.status).toBe("finished");
    await fireAt(id, first + MINUTE + 20_000);
    await fireAt(id, first + MINUTE + 30_000);
    const runs = await scheduleRuns(id);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ firedAt: new Date(first + MINUTE).toISOString() });
  });

  it("a queued fire starts even when the schedule never hears of the end: the alarm asks the previous run", async () => {
    const { id, first } = await everyMinute({ overlap: "queue" });
    await fireAt(id, first);
    await fireAt(id, first + MINUTE);
    const [run] = await scheduleRuns(id);
    const stub = stubFor(run!.id);
    while ((await runDurableObjectAlarm(stub)) && (await getRun(run!.id, TEST_API_TOKEN)).status === "running");
    // No outbox delivery: the queued fire's own check (QUEUED_CHECK_MS) looks at the run itself.
    await fireAt(id, first + MINUTE + 5 * MINUTE);
    expect((await scheduleRuns(id)).map((summary) => summary.firedAt)).toContain(new Date(first + MINUTE).toISOString());
  });

  it("overlap allow: every fire starts a run", async () => {
    const { id, first } = await everyMinute({ overlap: "allow" });
    for (let i = 0; i < 3; i++) await fireAt(id, first + i * MINUTE);
    expect(await scheduleRuns(id)).toHaveLength(3);
  });

  it("catchUp one (the default): after downtime, one run for the newest missed fire, the others recorded as missed", async () => {
    const { id, first } = await everyMinute();
    await fireAt(id, first + 4 * MINUTE + 20_000);
    const runs = await scheduleRuns(id);
    expect(runs.map((run) => run.firedAt)).toEqual([new Date(first + 4 * MINUTE).toISOString()]);
    const { fires, nextAt } = await getSchedule(id);
    expect(fires).toEqual([
      { at: new Date(first + 4 * MINUTE).toISOString(), kind: "cron", outcome: "started", runId: runs[0]!.id, missed: 4 },
      { at: new Date(first).toISOString(), kind: "cron", outcome: "missed", missed: 4, through: new Date(first + 3 * MINUTE).toISOString(), reason: "4 fires missed while the schedule was not running." },
    ]);
    expect(nextAt).toBe(new Date(first + 5 * MINUTE).toISOString());
  });

  it("catchUp none: missed fires make no run; a fire on time after downtime still does", async () => {
    const late = await createSchedule({ cron: "*/5 * * * *", catchUp: "none", run: scriptedRun() });
    const lateFirst = Date.parse(late.nextAt!);
    // Fires due at first, +5 and +10 minutes; the newest is 90 s late: missed with the rest.
    await fireAt(late.id, lateFirst + 10 * MINUTE + 90_000);
    expect(await scheduleRuns(late.id)).toEqual([]);
    expect((await getSchedule(late.id)).fires).toEqual([expect.objectContaining({ outcome: "missed", missed: 3, through: new Date(lateFirst + 10 * MINUTE).toISOString() })]);
    const onTime = await everyMinute({ catchUp: "none" });
    await fireAt(onTime.id, onTime.first + 3 * MINUTE + 2_000);
    expect((await scheduleRuns(onTime.id)).map((run) => run.firedAt)).toEqual([new Date(onTime.first + 3 * MINUTE).toISOString()]);
    expect((await getSchedule(onTime.id)).fires[1]).toMatchObject({ outcome: "missed", missed: 3 });
  });

  it("a paused schedule has no next fire and no alarm; resumed, it fires again from then on, and missed nothing meanwhile", async () => {
    const { id, first } = await everyMinute();
    const paused = await patchSchedule(id, { paused: true });
    expect(paused).toMatchObject({ paused: true });
    expect(paused.nextAt).toBeUndefined();
    expect(await runDurableObjectAlarm(scheduleStubFor(id))).toBe(false);
    // Resumed ten minutes on (the schedule's clock), it counts from there.
    await runInDurableObject(scheduleStubFor(id), (instance) => {
      instance.now = () => first + 10 * MINUTE;
    });
    const resumed = await patchSchedule(id, { paused: false });
    expect(resumed.nextAt).toBe(new Date(first + 11 * MINUTE).toISOString());
    await fireAt(id, first + 11 * MINUTE);
    expect((await getSchedule(id)).fires.map((fire) => fire.outcome)).toEqual(["started"]);
  });

  it("a deleted schedule fires no more; its runs stay, and their late changes are dropped", async () => {
    const { id, first } = await everyMinute();
    await fireAt(id, first);
    const [run] = await scheduleRuns(id);
    expect((await scheduleCall(`/v1/schedules/${id}`, { method: "DELETE" })).status).toBe(204);
    expect(await runDurableObjectAlarm(scheduleStubFor(id))).toBe(false);
    // The run ends and its outbox still reaches the deleted schedule: taken and dropped, not retried.
    await settle(run!.id);
    expect((await pendingOutbox(stubFor(run!.id))).filter((row) => row.channel === "schedule")).toEqual([]);
    expect((await getRun(run!.id, TEST_API_TOKEN)).scheduleId).toBe(id);
    expect((await scheduleCall(`/v1/runs?scheduleId=${id}`)).status).toBe(404);
  });

  it("a fire whose run object keeps failing is tried FIRE_ATTEMPTS times, then recorded as failed, never again", async () => {
    const { id, first } = await everyMinute();
    // The run objects cannot be reached from this schedule: every create fails on the way.
    await runInDurableObject(scheduleStubFor(id), (instance) => {
      const away = { idFromName: (name: string) => env.RUNS.idFromName(name), get: () => ({ create: () => Promise.reject(new Error("The run object is away.")) }) };
      (instance as unknown as { env: Env }).env = { ...env, RUNS: away as unknown as Env["RUNS"] };
    });
    for (let attempt = 1; attempt <= FIRE_ATTEMPTS; attempt++) {
      expect(await fireAt(id, first + attempt * PENDING_RETRY_MS), `attempt ${attempt}`).toBe(true);
      const [fire] = await storedFires(id);
      expect(fire).toMatchObject({ attempts: attempt, outcome: attempt < FIRE_ATTEMPTS ? "pending" : "failed" });
    }
    expect((await getSchedule(id)).fires[0]!.reason).toBe("The run could not be created: Error: The run object is away.");
    // No retry is set any more: the next alarm is the next fire time's.
    expect(await alarmOf(id)).toBe(first + MINUTE + TEST_ALARM_DELAY_MS);
    expect(await scheduleRuns(id)).toEqual([]);
  });

  it("a fire refused by the subject's spend limit is recorded as failed with the reason, and never tried again", async () => {
    const subject = freshSubject("sched-spend");
    const schedule = await createSchedule({ cron: "* * * * *", subject, overlap: "allow", run: scriptedRun({ budget: { usd: 8 } }) });
    const first = Date.parse(schedule.nextAt!);
    await fireAt(schedule.id, first);
    await fireAt(schedule.id, first + MINUTE);
    await fireAt(schedule.id, first + 2 * MINUTE);
    const { fires } = await getSchedule(schedule.id);
    expect(fires.map((fire) => fire.outcome)).toEqual(["failed", "started", "started"]);
    expect(fires[0]!.reason).toMatch(/^spend-limit: /);
    // The alarm comes again: the failed fire stays failed.
    await fireAt(schedule.id, first + 2 * MINUTE + 30_000);
    expect((await storedFires(schedule.id)).filter((fire) => fire.outcome === "failed")).toHaveLength(1);
    expect(await scheduleRuns(schedule.id)).toHaveLength(2);
  });
});
