// Each fire of a schedule admits its stored run again through the one intake, with today's settings
// and its creator's rights. A fire that today's settings refuse (here: a run stored with maxSteps
// past MAX_STEPS_LIMIT, as one stored before the cap was lowered would be) makes no run: the fire is
// recorded `failed` with the refusal, which names the setting, and the schedule goes on.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readTemplate, writeTemplate } from "../../src/durable/schedule/schedule-store";
import { createSchedule, fireAt, getSchedule, scheduleRuns, scheduleStubFor, scriptedRun, storedFires } from "../helpers/schedules";

describe("a schedule's fire goes through the intake", () => {
  it("a stored run past today's MAX_STEPS_LIMIT: the fire is failed with the refusal naming the setting, and no run is made", async () => {
    const schedule = await createSchedule({ cron: "* * * * *", run: scriptedRun(), overlap: "allow" });
    await runInDurableObject(scheduleStubFor(schedule.id), (_instance, state) => {
      const template = readTemplate(state.storage.sql);
      writeTemplate(state.storage.sql, { ...template, body: { ...template.body, maxSteps: 101 } });
    });
    const first = Date.parse(schedule.nextAt!);
    expect(await fireAt(schedule.id, first)).toBe(true);
    const [fire] = await storedFires(schedule.id);
    expect(fire).toMatchObject({ outcome: "failed", run_id: null });
    expect(fire!.reason).toContain("run.maxSteps");
    expect(fire!.reason).toContain("MAX_STEPS_LIMIT");
    expect(await scheduleRuns(schedule.id)).toEqual([]);
    // The schedule goes on: its next fire is set.
    expect((await getSchedule(schedule.id)).nextAt).toBe(new Date(first + 60_000).toISOString());
  });
});
