// When a run object wakes up: stepping a running run at once, the earliest outbox row, or the end
// of a stopped run's retention, whichever is first; nothing when nothing is left.
import { describe, expect, it } from "vitest";
import { nextAlarm } from "../../src/durable/next-alarm";

const now = 1_000_000;

describe("nextAlarm", () => {
  it("a running run steps at once (plus ALARM_DELAY_MS), whatever else is pending", () => {
    expect(nextAlarm({ running: true, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: true, outboxDueAt: now + 5_000, deleteAt: now - 1, now, delayMs: 0 })).toBe(now);
    expect(nextAlarm({ running: true, now, delayMs: 250 })).toBe(now + 250);
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
