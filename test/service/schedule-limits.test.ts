// What holds a schedule to its subject and its token, through the whole Worker: at most
// SCHEDULES_PER_SUBJECT schedules per subject (a 409 naming it; a delete frees a slot); a schedule
// a user token made pauses itself (pausedReason token-revoked / token-expired) at its next fire
// once that token is revoked or expired, and only a new token of the subject or the deployment
// resumes it; a trigger is held to the triggering token's budgetUsdPerDay; and the schedule's run
// index is trimmed with the runs' retention (RUN_RETENTION_DAYS).
import { runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { expectError } from "../helpers/http";
import { asUserRun, deliverOutbox, freshSubject } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { createSchedule, fireAt, getSchedule, patchSchedule, scheduleCall, scheduleStubFor, scriptedRun, setClock, storedFires } from "../helpers/schedules";
import { driveRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const MINUTE = 60_000;
const DAY = 24 * 3600 * 1000;

/** A user token for `subject` with its id (for DELETE /v1/tokens/:id). */
async function mint(subject: string, extra: Record<string, unknown> = {}): Promise<{ token: string; id: string }> {
  const response = await SELF.fetch("https://ratchet.test/v1/tokens", {
    method: "POST",
    headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ subject, ...extra }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { token: string; id: string };
}

async function userSchedule(token: string): Promise<string> {
  const run = await asUserRun({ messages: [{ role: "user", content: "Digest." }], script: [{ text: "Digest." }] });
  // overlap allow: a fire starts whatever the previous run does (the tests do not drive them).
  return (await createSchedule({ cron: "* * * * *", overlap: "allow", run }, token)).id;
}

const startedRuns = async (id: string) => (await storedFires(id)).filter((fire) => fire.outcome === "started").length;

/** The next minute's fire time after `at`. */
const nextMinute = (at: number) => Math.ceil((at + 1) / MINUTE) * MINUTE;

describe("schedules held to their subject and token", () => {
  it("SCHEDULES_PER_SUBJECT: the 21st schedule of a subject is a 409 naming it; a delete frees a slot; the deployment's own are not counted", async () => {
    const subject = freshSubject("many");
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await createSchedule({ cron: "0 9 * * *", subject, run: scriptedRun() })).id);
    const refused = await expectError(await scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 9 * * *", subject, run: scriptedRun() } }), 409, "conflict");
    expect(refused.error.message).toContain("SCHEDULES_PER_SUBJECT");
    // The subject's own user token is held to the same count.
    const { token } = await mint(subject);
    const run = await asUserRun({ messages: [{ role: "user", content: "x" }] });
    await expectError(await scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 9 * * *", run }, token }), 409, "conflict");
    expect((await scheduleCall(`/v1/schedules/${ids[0]}`, { method: "DELETE" })).status).toBe(204);
    await createSchedule({ cron: "0 9 * * *", subject, run: scriptedRun() });
    // Another subject is not affected.
    await createSchedule({ cron: "0 9 * * *", subject: freshSubject("other"), run: scriptedRun() });
  });

  it("a user token's schedule pauses itself (token-revoked) at its next fire once the token is revoked; a new token of the subject resumes it", async () => {
    const subject = freshSubject("revoked");
    const first = await mint(subject);
    const id = await userSchedule(first.token);
    const now = Date.now();
    expect(await fireAt(id, nextMinute(now))).toBe(true);
    expect(await startedRuns(id)).toBe(1);
    expect((await scheduleCall(`/v1/tokens/${first.id}`, { method: "DELETE" })).status).toBe(204);
    await fireAt(id, nextMinute(now) + MINUTE);
    // No run after the revocation: paused, and why.
    expect(await startedRuns(id)).toBe(1);
    const paused = await getSchedule(id);
    expect(paused).toMatchObject({ paused: true, pausedReason: "token-revoked" });
    expect(paused.nextAt).toBeUndefined();
    // A new token of the subject resumes it; the schedule fires under that token from then on.
    const second = await mint(subject);
    await setClock(id, nextMinute(now) + 2 * MINUTE);
    const resumed = await patchSchedule(id, { paused: false }, second.token);
    expect(resumed.paused).toBe(false);
    expect(resumed.pausedReason).toBeUndefined();
    await fireAt(id, nextMinute(now) + 3 * MINUTE);
    expect(await startedRuns(id)).toBe(2);
  });

  it("a user token's schedule pauses itself (token-expired) once its token expired; the deployment token resumes it", async () => {
    const subject = freshSubject("expired");
    const { token } = await mint(subject, { ttlSeconds: 120 });
    const id = await userSchedule(token);
    // The schedule's clock is past the token's expiry (at most 120 s from now).
    const later = nextMinute(Date.now() + 10 * MINUTE);
    await fireAt(id, later);
    expect(await startedRuns(id)).toBe(0);
    expect(await getSchedule(id)).toMatchObject({ paused: true, pausedReason: "token-expired" });
    const resumed = await patchSchedule(id, { paused: false });
    expect(resumed.pausedReason).toBeUndefined();
    await fireAt(id, later + MINUTE);
    expect(await startedRuns(id)).toBe(1);
  });

  it("a trigger is held to the triggering token's budgetUsdPerDay, not the schedule's", async () => {
    const subject = freshSubject("trigger-limit");
    const schedule = await createSchedule({ cron: "0 9 * * *", subject, run: scriptedRun({ budget: { usd: 5 } }) });
    const { token } = await mint(subject, { budgetUsdPerDay: 1 });
    const refused = await expectError(await scheduleCall(`/v1/schedules/${schedule.id}/trigger`, { method: "POST", token }), 402, "spend-limit");
    expect(refused.error.issues?.[0]?.path).toBe("budget.usd");
    // The deployment token's trigger is held to the subject's limit (SUBJECT_BUDGET_USD_PER_DAY, 20): it starts.
    expect((await scheduleCall(`/v1/schedules/${schedule.id}/trigger`, { method: "POST" })).status).toBe(201);
  });

  it("the run index is trimmed with the runs' retention: an ended run's row goes RUN_RETENTION_DAYS after its last change", async () => {
    const schedule = await createSchedule({ cron: "0 9 * * *", run: scriptedRun() });
    const rows = () =>
      runInDurableObject(scheduleStubFor(schedule.id), (_instance, state) => state.storage.sql.exec<{ run_id: string }>("SELECT run_id FROM schedule_run").toArray().map((row) => row.run_id));
    const triggered = async (): Promise<string> => {
      const response = await scheduleCall(`/v1/schedules/${schedule.id}/trigger`, { method: "POST" });
      expect(response.status).toBe(201);
      const { run } = (await response.json()) as { run: RunView };
      await driveRun(run.id);
      await deliverOutbox(stubFor(run.id));
      return run.id;
    };
    const old = await triggered();
    expect(await rows()).toEqual([old]);
    // 31 days on (RUN_RETENTION_DAYS is 30): the next change the index takes trims the old row.
    await setClock(schedule.id, Date.now() + 31 * DAY);
    const recent = await triggered();
    expect(await rows()).toEqual([recent]);
  });
});
