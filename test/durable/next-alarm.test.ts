// nextAlarm: when a run's object wakes next. A run suspended on an async call sleeps until that
// call's deadline (no alarm before), unless its result is already there; everything else as before.
import { describe, expect, it } from "vitest";
import { nextAlarm, type AlarmFacts } from "../../src/durable/next-alarm";

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

function facts(extra: Partial<AlarmFacts>): AlarmFacts {
  return { status: "running", deleteAt: undefined, suspendedOn: undefined, now: NOW, delayMs: 0, ...extra };
}

describe("nextAlarm", () => {
  it("a running run goes on now, plus ALARM_DELAY_MS", () => {
    expect(nextAlarm(facts({}))).toBe(NOW);
    expect(nextAlarm(facts({ delayMs: 250 }))).toBe(NOW + 250);
  });

  it("a run suspended on a call without a result sleeps until that call's deadline, whatever ALARM_DELAY_MS says", () => {
    expect(nextAlarm(facts({ suspendedOn: { deadline: NOW + HOUR, answered: false } }))).toBe(NOW + HOUR);
    expect(nextAlarm(facts({ suspendedOn: { deadline: NOW + HOUR, answered: false }, delayMs: 365 * 24 * HOUR }))).toBe(NOW + HOUR);
  });

  it("a result stored while the slice was ending is taken now, not at the deadline", () => {
    expect(nextAlarm(facts({ suspendedOn: { deadline: NOW + HOUR, answered: true } }))).toBe(NOW);
    expect(nextAlarm(facts({ suspendedOn: { deadline: NOW + HOUR, answered: true }, delayMs: 40 }))).toBe(NOW + 40);
  });

  it("a deadline already past wakes the run now", () => {
    expect(nextAlarm(facts({ suspendedOn: { deadline: NOW - 5, answered: false } }))).toBe(NOW);
  });

  it("a run that is not running wakes when its retention ends, or never when it has none", () => {
    for (const status of ["waiting", "finished", "failed", "cancelled"] as const) {
      expect(nextAlarm(facts({ status, deleteAt: NOW + 30 * 24 * HOUR }))).toBe(NOW + 30 * 24 * HOUR);
      expect(nextAlarm(facts({ status, deleteAt: undefined }))).toBeUndefined();
      // A suspension recorded by a slice does not outlive the run's stop.
      expect(nextAlarm(facts({ status, deleteAt: NOW + 1, suspendedOn: { deadline: NOW + HOUR, answered: false } }))).toBe(NOW + 1);
    }
  });
});
