// When a run object wakes up: stepping a running run at once (or at its unanswered async call's
// deadline), the earliest outbox row, or the end of a stopped run's retention, whichever is first;
// nothing when nothing is left.
import { describe, expect, it } from "vitest";
import { nextAlarm, stepDue } from "../../src/durable/run/next-alarm";

const now = 1_800_000_000_000;
const HOUR = 3_600_000;

describe("nextAlarm", () => {
  it("a running run steps at once (plus ALARM_DELAY_MS), whatever else is pending", () => {
    expect(nextAlarm({ running: true, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: true, outboxDueAt: now + 5_000, deleteAt: now - 1, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: true, now, delayMs: 250 })).toBe(now + 250);
  });

  it("a run suspended on a call without a result sleeps until that call's deadline, whatever ALARM_DELAY_MS says", () => {
    const suspendedOn = { deadline: now + HOUR, answered: false };
    expect(nextAlarm({ running: true, suspendedOn, now, delayMs: 0 })).toBe(now + HOUR);
    expect(nextAlarm({ running: true, suspendedOn, now, delayMs: 365 * 24 * HOUR })).toBe(now + HOUR);
  });

  it("a suspended run still wakes earlier for its outbox", () => {
    expect(nextAlarm({ running: true, suspendedOn: { deadline: now + HOUR, answered: false }, outboxDueAt: now + 1_000, now, delayMs: 0 })).toBe(now + 1_000);
  });

  it("a result stored while the slice was ending is taken now, not at the deadline", () => {
    expect(nextAlarm({ running: true, suspendedOn: { deadline: now + HOUR, answered: true }, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: true, suspendedOn: { deadline: now + HOUR, answered: true }, now, delayMs: 40 })).toBe(now + 40);
  });

  it("a deadline already past wakes the run now", () => {
    expect(nextAlarm({ running: true, suspendedOn: { deadline: now - 5, answered: false }, now, delayMs: 0 })).toBe(now);
  });

  it("a suspension recorded by a slice does not outlive the run's stop", () => {
    expect(nextAlarm({ running: false, suspendedOn: { deadline: now + HOUR, answered: false }, deleteAt: now + 1, now, delayMs: 0 })).toBe(now + 1);
    expect(nextAlarm({ running: false, suspendedOn: { deadline: now + HOUR, answered: false }, now, delayMs: 0 })).toBeUndefined();
  });

  it("a stopped run wakes for its next outbox row before its retention ends", () => {
    expect(nextAlarm({ running: false, outboxDueAt: now + 10_000, deleteAt: now + 30 * 86_400_000, now, delayMs: 0 })).toBe(now + 10_000);
    expect(nextAlarm({ running: false, outboxDueAt: now + 40 * 86_400_000, deleteAt: now + 30 * 86_400_000, now, delayMs: 0 })).toBe(now + 30 * 86_400_000);
  });

  it("an overdue outbox row is due now, never in the past; an overdue retention fires at once", () => {
    expect(nextAlarm({ running: false, outboxDueAt: now - 60_000, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: false, outboxDueAt: now - 60_000, now, delayMs: 500 })).toBe(now + 500);
    expect(nextAlarm({ running: false, deleteAt: now - 1, now, delayMs: 0 })).toBe(now - 1);
  });

  it("a deleted run's tombstone wakes only while its outbox holds changes", () => {
    expect(nextAlarm({ running: false, outboxDueAt: now + 1_000, now, delayMs: 0 })).toBe(now + 1_000);
    expect(nextAlarm({ running: false, now, delayMs: 0 })).toBeUndefined();
  });
});

describe("stepDue", () => {
  it("an alarm steps a running run that waits on nothing, whatever ALARM_DELAY_MS says", () => {
    expect(stepDue({ running: true, now, delayMs: 0 })).toBe(true);
    expect(stepDue({ running: true, now, delayMs: 365 * 24 * HOUR })).toBe(true);
  });

  it("an alarm for the outbox alone does not step a run suspended on an unanswered call before its deadline", () => {
    expect(stepDue({ running: true, suspendedOn: { deadline: now + HOUR, answered: false }, outboxDueAt: now, now, delayMs: 0 })).toBe(false);
    expect(stepDue({ running: true, suspendedOn: { deadline: now + HOUR, answered: true }, now, delayMs: 0 })).toBe(true);
    expect(stepDue({ running: true, suspendedOn: { deadline: now, answered: false }, now, delayMs: 0 })).toBe(true);
  });

  it("a run that is not running is never stepped by an alarm", () => {
    expect(stepDue({ running: false, now, delayMs: 0 })).toBe(false);
  });
});
