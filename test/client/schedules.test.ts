// The typed client's schedules: create, list, read, pause and resume, trigger, the schedule's runs
// (listRuns with scheduleId) and delete, against the Worker (SELF); refusals as RatchetError with
// the API's code and issues.
import { describe, expect, it } from "vitest";
import { createClient, RatchetError } from "../../src/client";
import { freshSubject } from "../helpers/inbox";
import { BASE, createLab } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";

const run = { provider: "scripted" as const, messages: [{ role: "user" as const, content: "The digest." }], script: [{ text: "Digest." }] };

describe("the typed client's schedules", () => {
  it("creates, lists, pauses, resumes, triggers and deletes a schedule, and lists its runs", async () => {
    const lab = createLab();
    const client = createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });
    const subject = freshSubject("client-sched");
    const schedule = await client.createSchedule({ cron: "0 8 * * 1-5", timezone: "Europe/Paris", subject, run });
    expect(schedule).toMatchObject({ cron: "0 8 * * 1-5", timezone: "Europe/Paris", subject, paused: false });
    expect((await client.listSchedules({ subject })).schedules.map((item) => item.id)).toEqual([schedule.id]);
    expect((await client.updateSchedule(schedule.id, { paused: true })).nextAt).toBeUndefined();
    expect((await client.updateSchedule(schedule.id, { paused: false })).nextAt).toBeDefined();
    const triggered = await client.triggerSchedule(schedule.id);
    expect(triggered).toMatchObject({ scheduleId: schedule.id, subject });
    expect((await client.listRuns({ scheduleId: schedule.id })).runs.map((summary) => summary.id)).toEqual([triggered.id]);
    expect((await client.getSchedule(schedule.id)).lastRuns.map((summary) => summary.id)).toEqual([triggered.id]);
    await client.deleteSchedule(schedule.id);
    const gone = await client.getSchedule(schedule.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(RatchetError);
    expect((gone as RatchetError).code).toBe("not-found");
  });

  it("a refused schedule is a RatchetError naming the field", async () => {
    const lab = createLab();
    const client = createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });
    const error = (await client.createSchedule({ cron: "* * * * * *", run }).catch((caught: unknown) => caught)) as RatchetError;
    expect(error).toBeInstanceOf(RatchetError);
    expect(error.code).toBe("invalid-request");
    expect(error.issues?.map((issue) => issue.path)).toEqual(["cron"]);
  });
});
