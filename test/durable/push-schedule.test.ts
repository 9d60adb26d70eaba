// The push outbox's retry rules and the inbox's one alarm, as pure decisions.
import { describe, expect, it } from "vitest";
import { nextInboxAlarm } from "../../src/durable/inbox/inbox-alarm";
import { mayAttemptPush, outcomeOf, PUSH_MAX_ATTEMPTS, PUSH_WINDOW_MS, pushRetryDelay } from "../../src/durable/push/push-schedule";

describe("push retries", () => {
  it("wait 5 s × 3^(n−1), at most 10 min, with jitter of ±25 %, or longer when Retry-After asks", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => pushRetryDelay(n, 0.5))).toEqual([5_000, 15_000, 45_000, 135_000, 405_000, 600_000, 600_000]);
    expect(pushRetryDelay(1, 0)).toBe(3_750);
    expect(pushRetryDelay(1, 0.999999)).toBe(6_250);
    expect(pushRetryDelay(1, 0.5, 120_000)).toBe(120_000);
    // A Retry-After longer than the window is held to it.
    expect(pushRetryDelay(1, 0.5, 10 * PUSH_WINDOW_MS)).toBe(PUSH_WINDOW_MS);
  });

  it("stop after 8 attempts or an hour after the push was queued", () => {
    expect(mayAttemptPush(PUSH_MAX_ATTEMPTS - 1, 0, 1000)).toBe(true);
    expect(mayAttemptPush(PUSH_MAX_ATTEMPTS, 0, 1000)).toBe(false);
    expect(mayAttemptPush(1, 0, PUSH_WINDOW_MS)).toBe(true);
    expect(mayAttemptPush(1, 0, PUSH_WINDOW_MS + 1)).toBe(false);
  });

  it("read the push service's answer", () => {
    expect([200, 201, 202].map(outcomeOf)).toEqual(["delivered", "delivered", "delivered"]);
    expect([404, 410].map(outcomeOf)).toEqual(["gone", "gone"]);
    expect([400, 401, 403, 413].map(outcomeOf)).toEqual(["refused", "refused", "refused", "refused"]);
    expect([0, 301, 408, 425, 429, 500, 503].map(outcomeOf)).toEqual(["retry", "retry", "retry", "retry", "retry", "retry", "retry"]);
  });
});

describe("the inbox's one alarm", () => {
  it("is the earlier of the next token look and the next push (a push no sooner than ALARM_DELAY_MS), or none", () => {
    expect(nextInboxAlarm({ now: 1000, delayMs: 0 })).toBeUndefined();
    expect(nextInboxAlarm({ tokenCheckAt: 5000, now: 1000, delayMs: 0 })).toBe(5000);
    expect(nextInboxAlarm({ pushDueAt: 500, now: 1000, delayMs: 0 })).toBe(1000);
    expect(nextInboxAlarm({ pushDueAt: 3000, tokenCheckAt: 5000, now: 1000, delayMs: 0 })).toBe(3000);
    expect(nextInboxAlarm({ pushDueAt: 3000, tokenCheckAt: 5000, now: 1000, delayMs: 10_000 })).toBe(5000);
    expect(nextInboxAlarm({ pushDueAt: 3000, tokenCheckAt: 50_000, now: 1000, delayMs: 10_000 })).toBe(11_000);
  });
});
