// A schedule's clock (src/lib/time/cron-schedule.ts): croner's five- and six-field expressions in IANA
// time zones, the shortest gap SCHEDULE_MIN_SECONDS allows, and the fires due after downtime.
import { describe, expect, it } from "vitest";
import { DUE_COUNT_LIMIT, dueFires, isTimeZone, nextFire, scheduleIssues } from "../../src/lib/time/cron-schedule";

const at = (iso: string) => Date.parse(iso);
const NOW = at("2026-07-01T10:00:00.300Z");

describe("a schedule's clock", () => {
  it("reads five and six fields, in a time zone (summer time included)", () => {
    expect(new Date(nextFire("0 9 * * *", "Europe/Paris", NOW)!).toISOString()).toBe("2026-07-02T07:00:00.000Z");
    expect(new Date(nextFire("0 9 * * *", "Europe/Paris", at("2026-01-10T12:00:00Z"))!).toISOString()).toBe("2026-01-11T08:00:00.000Z");
    expect(new Date(nextFire("30 * * * * *", "UTC", NOW)!).toISOString()).toBe("2026-07-01T10:00:30.000Z");
    expect(nextFire("0 0 1 1 *", "UTC", NOW)).toBe(at("2027-01-01T00:00:00Z"));
  });

  it("takes only IANA zone names", () => {
    expect(isTimeZone("America/New_York")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
  });

  it("names what is wrong: the expression, the zone, a pattern that never fires, fires closer than the minimum", () => {
    expect(scheduleIssues("*/5 * * * *", "UTC", 60, NOW)).toEqual([]);
    expect(scheduleIssues("* * * * *", "UTC", 61, NOW)).toEqual([{ path: "cron", message: "Fires 60 s apart; at least 61 s on this deployment (SCHEDULE_MIN_SECONDS)." }]);
    expect(scheduleIssues("* * * * * *", "UTC", 1, NOW)).toEqual([]);
    expect(scheduleIssues("0,10 0 9 * * *", "UTC", 60, NOW)[0]!.message).toMatch(/^Fires 10 s apart/);
    expect(scheduleIssues("0 0 31 2 *", "UTC", 60, NOW)).toEqual([{ path: "cron", message: "This expression never fires." }]);
    expect(scheduleIssues("0 9 * * * * *", "UTC", 60, NOW)[0]!.path).toBe("cron");
    expect(scheduleIssues("0 9 * *", "UTC", 60, NOW)[0]!.path).toBe("cron");
    expect(scheduleIssues("0 9 * * *", "Nowhere/City", 60, NOW)[0]!.path).toBe("timezone");
  });

  it("counts the fires due since the last look: none, one, several, and many (a lower bound)", () => {
    expect(dueFires("* * * * *", "UTC", NOW, NOW + 30_000)).toBeUndefined();
    expect(dueFires("* * * * *", "UTC", NOW, NOW + 60_000)).toEqual({ count: 1, atLeast: false, first: at("2026-07-01T10:01:00Z"), latest: at("2026-07-01T10:01:00Z") });
    expect(dueFires("* * * * *", "UTC", NOW, at("2026-07-01T10:05:10Z"))).toEqual({
      count: 5,
      atLeast: false,
      first: at("2026-07-01T10:01:00Z"),
      latest: at("2026-07-01T10:05:00Z"),
      beforeLatest: at("2026-07-01T10:04:00Z"),
    });
    // A fire exactly at the last look was dealt with then.
    expect(dueFires("* * * * *", "UTC", at("2026-07-01T10:01:00Z"), at("2026-07-01T10:01:30Z"))).toBeUndefined();
    const many = dueFires("* * * * * *", "UTC", NOW, NOW + 3 * 86_400_000)!;
    expect(many).toMatchObject({ count: DUE_COUNT_LIMIT, atLeast: true, latest: Math.floor((NOW + 3 * 86_400_000) / 1000) * 1000 });
    expect(many.latest - many.beforeLatest!).toBe(1000);
  });
});
