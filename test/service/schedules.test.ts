// /v1/schedules through the whole Worker: create, read, list, change, trigger and delete; who may
// (the deployment token any schedule, a user token its subject's, a run token none); bad input as a
// 400 naming the field, with nothing created; and GET /v1/runs?scheduleId= in the listing's shape.
import { describe, expect, it } from "vitest";
import type { ScheduleView, SchedulesPage } from "../../src/api/resources/schedule-types";
import type { RunView } from "../../src/api/types";
import { expectError } from "../helpers/http";
import { asUserRun, deliverOutbox, freshSubject, listAll, userToken } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";
import { createSchedule, fireAt, getSchedule, patchSchedule, scheduleCall, scheduleRuns, scheduleRunsPage, scriptedRun } from "../helpers/schedules";
import { startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const MINUTE = 60_000;
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

async function listSchedules(query = "", token = TEST_API_TOKEN): Promise<SchedulesPage> {
  const response = await scheduleCall(`/v1/schedules${query === "" ? "" : `?${query}`}`, { token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as SchedulesPage;
}

async function trigger(id: string, token = TEST_API_TOKEN): Promise<RunView> {
  const response = await scheduleCall(`/v1/schedules/${id}/trigger`, { method: "POST", token });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { run: RunView }).run;
}

describe("/v1/schedules", () => {
  it("creates a schedule with its defaults and next fire time, and reads it back", async () => {
    const subject = freshSubject("sched");
    const schedule = await createSchedule({ cron: "0 9 * * 1-5", timezone: "Europe/Paris", subject, run: scriptedRun() });
    expect(schedule).toMatchObject({ cron: "0 9 * * 1-5", timezone: "Europe/Paris", overlap: "skip", catchUp: "one", paused: false, subject, lastRuns: [], fires: [] });
    expect(schedule.id).toMatch(/^sch_[a-z2-7]{26}$/);
    // 09:00 in Paris on a weekday is 07:00 or 08:00 UTC.
    expect(new Date(schedule.nextAt!).getUTCHours()).toBeGreaterThanOrEqual(7);
    expect([1, 2, 3, 4, 5]).toContain(new Date(schedule.nextAt!).getUTCDay());
    // The run as checked: defaults filled in, the subject stamped.
    expect(schedule.run).toMatchObject({ provider: "scripted", maxSteps: 10, budget: { usd: 1 }, subject });
    expect(await getSchedule(schedule.id)).toEqual(schedule);
  });

  it("changes the cron, time zone, run, overlap and catch-up; a new cron counts from now", async () => {
    const schedule = await createSchedule({ cron: "0 9 * * *", run: scriptedRun() });
    const changed = await patchSchedule(schedule.id, { cron: "30 18 * * *", timezone: "America/New_York", overlap: "queue", catchUp: "none", run: scriptedRun({ maxSteps: 3 }) });
    expect(changed).toMatchObject({ cron: "30 18 * * *", timezone: "America/New_York", overlap: "queue", catchUp: "none" });
    expect(changed.run).toMatchObject({ maxSteps: 3 });
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(schedule.updatedAt));
    expect(new Date(changed.nextAt!).getUTCMinutes()).toBe(30);
    expect(changed.nextAt).not.toBe(schedule.nextAt);
  });

  it("refuses a bad cron, time zone, a schedule faster than SCHEDULE_MIN_SECONDS, or a bad run, naming the field; nothing is created", async () => {
    const subject = freshSubject("bad");
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ cron: "61 * * * *" }, "cron", /minute/],
      [{ cron: "every morning" }, "cron", /five or six fields/],
      [{ cron: "0 0 30 2 *" }, "cron", /never fires/],
      [{ cron: "* * * * * *" }, "cron", /SCHEDULE_MIN_SECONDS/],
      [{ cron: "*/30 * * * * *" }, "cron", /at least 60 s/],
      [{ timezone: "Mars/Olympus_Mons" }, "timezone", /IANA/],
      [{ run: scriptedRun({ maxSteps: 1000 }) }, "run.maxSteps", /MAX_STEPS_LIMIT/],
      [{ run: scriptedRun({ maxStep: 3 }) }, "run.maxStep", /Unknown field/],
      [{ run: { messages: [] } }, "run.messages", /At least one/],
      [{ run: scriptedRun({ tools: ["nope"] }) }, "run.tools.0", /nope/],
      [{ run: scriptedRun({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", data: PNG }] }] }) }, "run.messages", /images/],
      [{ run: scriptedRun({ subject: "someone-else" }) }, "run.subject", /Differs/],
      [{ overlap: "sometimes" }, "overlap", /./],
      [{ catchUp: "all" }, "catchUp", /./],
      [{ every: "day" }, "every", /Unknown field/],
    ];
    for (const [change, path, message] of cases) {
      const response = await scheduleCall("/v1/schedules", { method: "POST", body: { cron: "0 9 * * *", subject, run: scriptedRun(), ...change } });
      const body = await expectError(response, 400, "invalid-request");
      expect(body.error.issues?.map((issue) => issue.path), JSON.stringify(change)).toContain(path);
      expect(body.error.issues!.find((issue) => issue.path === path)!.message, path).toMatch(message);
    }
    expect((await listSchedules(`subject=${subject}`)).schedules).toEqual([]);
  });

  it("a PATCH that is refused changes nothing", async () => {
    const schedule = await createSchedule({ cron: "0 9 * * *", run: scriptedRun() });
    await expectError(await scheduleCall(`/v1/schedules/${schedule.id}`, { method: "PATCH", body: { cron: "* * * * * *" } }), 400, "invalid-request");
    await expectError(await scheduleCall(`/v1/schedules/${schedule.id}`, { method: "PATCH", body: { paused: true, run: scriptedRun({ budget: { usd: 99 } }) } }), 400, "invalid-request");
    expect(await getSchedule(schedule.id)).toEqual(schedule);
  });

  it("lists schedules newest first with cursors: a subject's, or the deployment's own (no subject)", async () => {
    const subject = freshSubject("list");
    const made: ScheduleView[] = [];
    for (let i = 0; i < 3; i++) made.push(await createSchedule({ cron: `${i} 9 * * *`, subject, run: scriptedRun() }));
    const first = await listSchedules(`subject=${subject}&limit=2`);
    expect(first.schedules.map((schedule) => schedule.id)).toEqual([made[2]!.id, made[1]!.id]);
    const second = await listSchedules(`subject=${subject}&limit=2&cursor=${first.nextCursor}`);
    expect(second.schedules.map((schedule) => schedule.id)).toEqual([made[0]!.id]);
    expect(second.nextCursor).toBeUndefined();
    const own = await createSchedule({ cron: "0 9 * * *", run: scriptedRun() });
    const deployment = await listSchedules("limit=100");
    expect(deployment.schedules.map((schedule) => schedule.id)).toContain(own.id);
    expect(deployment.schedules.every((schedule) => schedule.subject === undefined)).toBe(true);
    await expectError(await scheduleCall("/v1/schedules?cursor=notacursor!"), 400, "invalid-request");
  });

  it("deletes a schedule: 204, then 404 everywhere, and gone from its listing; its runs stay", async () => {
    const subject = freshSubject("del");
    const schedule = await createSchedule({ cron: "0 9 * * *", subject, run: scriptedRun() });
    const run = await trigger(schedule.id);
    expect((await scheduleCall(`/v1/schedules/${schedule.id}`, { method: "DELETE" })).status).toBe(204);
    for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/trigger"]] as const) {
      const response = await scheduleCall(`/v1/schedules/${schedule.id}${path}`, { method, ...(method === "PATCH" ? { body: { paused: true } } : {}) });
      expect((await expectError(response, 404, "not-found")).error.message).toBe("Schedule not found.");
    }
    expect((await listSchedules(`subject=${subject}`)).schedules).toEqual([]);
    expect((await scheduleCall(`/v1/runs/${run.id}`)).status).toBe(200);
  });

  it("triggers one run now, whatever the overlap, even while paused", async () => {
    const schedule = await createSchedule({ cron: "0 9 * * *", paused: true, run: scriptedRun() });
    const first = await trigger(schedule.id);
    const second = await trigger(schedule.id);
    expect(first).toMatchObject({ scheduleId: schedule.id, status: "running" });
    expect(second.id).not.toBe(first.id);
    const view = await getSchedule(schedule.id);
    expect(view.fires.map((fire) => [fire.kind, fire.outcome, fire.runId])).toEqual([["trigger", "started", second.id], ["trigger", "started", first.id]]);
    expect(view.fires[0]!.at).toBe(second.firedAt);
  });

  it("never shows an MCP server's headers", async () => {
    const schedule = await createSchedule({
      cron: "0 9 * * *",
      run: scriptedRun({ mcpServers: [{ name: "docs", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer secret-mcp-token" } }] }),
    });
    const text = JSON.stringify(await getSchedule(schedule.id));
    expect(text).not.toContain("secret-mcp-token");
    expect(schedule.run.mcpServers).toEqual([{ name: "docs", url: "http://127.0.0.1:9/mcp" }]);
  });
});

describe("schedules and tokens", () => {
  it("a user token manages its own subject's schedules; its run follows the user-token rules", async () => {
    const subject = freshSubject("ut");
    const token = await userToken(subject);
    const schedule = await createSchedule({ cron: "0 7 * * *", run: await asUserRun({ messages: [{ role: "user", content: "hi" }] }) }, token);
    expect(schedule.subject).toBe(subject);
    expect((await patchSchedule(schedule.id, { paused: true }, token)).paused).toBe(true);
    const run = await trigger(schedule.id, token);
    expect(run).toMatchObject({ subject, scheduleId: schedule.id });
    expect((await listSchedules("", token)).schedules.map((item) => item.id)).toEqual([schedule.id]);
    // The deployment token sees it under the subject.
    expect((await listSchedules(`subject=${subject}`)).schedules.map((item) => item.id)).toEqual([schedule.id]);

    const scripted = await scheduleCall("/v1/schedules", { method: "POST", token, body: { cron: "0 7 * * *", run: scriptedRun() } });
    expect((await expectError(scripted, 403, "forbidden")).error.message).toMatch(/SCRIPTED_PROVIDER/);
    const http = await scheduleCall("/v1/schedules", {
      method: "POST",
      token,
      body: { cron: "0 7 * * *", run: await asUserRun({ messages: [{ role: "user", content: "hi" }], tools: [{ type: "http", name: "h", description: "d", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/x" }] }) },
    });
    expect((await expectError(http, 400, "invalid-request")).error.issues?.map((issue) => issue.path)).toEqual(["run.tools.0"]);
    const other = await scheduleCall("/v1/schedules", { method: "POST", token, body: { cron: "0 7 * * *", subject: "someone-else", run: await asUserRun({ messages: [{ role: "user", content: "hi" }] }) } });
    expect((await expectError(other, 400, "invalid-request")).error.issues?.map((issue) => issue.path)).toEqual(["subject"]);
  });

  it("another subject's schedule is 404 for a user token, as an unknown id; a run token may not use schedules (403)", async () => {
    const owner = freshSubject("owner");
    const schedule = await createSchedule({ cron: "0 9 * * *", subject: owner, run: scriptedRun() });
    const stranger = await userToken(freshSubject("stranger"));
    for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/trigger"]] as const) {
      const response = await scheduleCall(`/v1/schedules/${schedule.id}${path}`, { method, token: stranger, ...(method === "PATCH" ? { body: { paused: true } } : {}) });
      await expectError(response, 404, "not-found");
    }
    await expectError(await scheduleCall(`/v1/runs?scheduleId=${schedule.id}`, { token: stranger }), 404, "not-found");
    await expectError(await scheduleCall(`/v1/schedules?subject=${owner}`, { token: stranger }), 403, "forbidden");
    const { token: runToken } = await startRun({ messages: [{ role: "user", content: "hi" }] });
    await expectError(await scheduleCall(`/v1/schedules/${schedule.id}`, { token: runToken }), 403, "forbidden");
    await expectError(await scheduleCall("/v1/schedules", { token: runToken }), 403, "forbidden");
    // An id this deployment did not mint is 404 before any object is asked.
    await expectError(await scheduleCall("/v1/schedules/sch_aaaaaaaaaaaaaaaaaaaaaaaaaa"), 404, "not-found");
    expect(await getSchedule(schedule.id)).toMatchObject({ paused: false });
  });
});

describe("GET /v1/runs?scheduleId=", () => {
  it("lists a schedule's runs in the listing's shape, newest first, with cursors and the status filter, with or without a subject", async () => {
    for (const subject of [undefined, freshSubject("runs")]) {
      const schedule = await createSchedule({ cron: "* * * * *", overlap: "allow", run: scriptedRun(), ...(subject === undefined ? {} : { subject }) });
      const first = Date.parse(schedule.nextAt!);
      for (let i = 0; i < 3; i++) await fireAt(schedule.id, first + i * MINUTE);
      const page = await scheduleRunsPage(schedule.id, "limit=2");
      expect(page.runs.map((run) => run.firedAt)).toEqual([new Date(first + 2 * MINUTE).toISOString(), new Date(first + MINUTE).toISOString()]);
      expect(page.runs[0]).toMatchObject({ scheduleId: schedule.id, status: "running", version: expect.any(Number) });
      const rest = await scheduleRunsPage(schedule.id, `limit=2&cursor=${page.nextCursor}`);
      expect(rest.runs.map((run) => run.firedAt)).toEqual([new Date(first).toISOString()]);
      expect(rest.nextCursor).toBeUndefined();
      expect((await scheduleRunsPage(schedule.id, "status=finished")).runs).toEqual([]);
      expect(await scheduleRuns(schedule.id)).toHaveLength(3);
    }
  });

  it("a subject's scheduled runs are in its own listing too, with their scheduleId; a user token lists its schedule's runs", async () => {
    const subject = freshSubject("both");
    const token = await userToken(subject);
    const schedule = await createSchedule({ cron: "0 9 * * *", subject, run: scriptedRun() });
    const run = await trigger(schedule.id);
    // The subject's inbox hears of the run from its outbox.
    await deliverOutbox(stubFor(run.id));
    expect((await listAll(token)).map((summary) => [summary.id, summary.scheduleId])).toEqual([[run.id, schedule.id]]);
    expect((await scheduleRunsPage(schedule.id, "", token)).runs.map((summary) => summary.id)).toEqual([run.id]);
    expect((await scheduleRunsPage(schedule.id, `subject=${subject}`)).runs).toHaveLength(1);
    await expectError(await scheduleCall(`/v1/runs?scheduleId=${schedule.id}&subject=${freshSubject("x")}`), 404, "not-found");
    await expectError(await scheduleCall("/v1/runs?scheduleId=sch_aaaaaaaaaaaaaaaaaaaaaaaaaa"), 404, "not-found");
  });
});
