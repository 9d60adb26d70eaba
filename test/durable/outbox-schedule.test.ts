// The outbox's retry schedule, with the random source and the clock given: webhooks back off
// exponentially with jitter for up to 24 hours (at most 9 attempts); the inbox is never given up.
import { describe, expect, it } from "vitest";
import {
  inboxRetryDelay,
  leaseUntil,
  mayAttemptWebhook,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_WINDOW_MS,
  webhookRetryDelay,
} from "../../src/durable/outbox/outbox-schedule";

const SECOND = 1000;
const HOUR = 3600 * SECOND;

describe("webhook retries", () => {
  it("the nominal schedule (jitter factor 1): 10 s, 40 s, 2 min 40, 10 min 40, 42 min 40, 2 h 50 min 40, then 8 h", () => {
    const middle = 0.5; // 0.75 + 0.5 × 0.5 = 1
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => webhookRetryDelay(n, middle) / SECOND)).toEqual([10, 40, 160, 640, 2560, 10240, 28800, 28800]);
  });

  it("jitter keeps every wait between 0.75 and 1.25 of the nominal one", () => {
    for (const n of [1, 4, 8]) {
      const nominal = webhookRetryDelay(n, 0.5);
      expect(webhookRetryDelay(n, 0)).toBe(Math.round(nominal * 0.75));
      expect(webhookRetryDelay(n, 0.999999)).toBeLessThanOrEqual(Math.round(nominal * 1.25));
      expect(webhookRetryDelay(n, 0.999999)).toBeGreaterThan(nominal);
    }
  });

  it("at most 9 attempts, none later than 24 hours after the first", () => {
    const first = 5_000_000;
    expect(mayAttemptWebhook(0, first, first)).toBe(true);
    expect(mayAttemptWebhook(WEBHOOK_MAX_ATTEMPTS - 1, first, first + HOUR)).toBe(true);
    expect(mayAttemptWebhook(WEBHOOK_MAX_ATTEMPTS, first, first + HOUR)).toBe(false);
    expect(mayAttemptWebhook(3, first, first + WEBHOOK_WINDOW_MS)).toBe(true);
    expect(mayAttemptWebhook(3, first, first + WEBHOOK_WINDOW_MS + 1)).toBe(false);
  });

  it("a receiver that always fails gets 9 attempts within 24 h at the nominal schedule, 8 or 9 with any jitter", () => {
    for (const random of [0, 0.5, 0.999999]) {
      const first = 0;
      let at = first;
      let attempts = 0;
      while (mayAttemptWebhook(attempts, first, at)) {
        attempts++;
        at += webhookRetryDelay(attempts, random);
      }
      expect(attempts).toBeGreaterThanOrEqual(8);
      expect(attempts).toBeLessThanOrEqual(WEBHOOK_MAX_ATTEMPTS);
      if (random === 0.5) expect(attempts).toBe(9);
    }
  });

  it("an attempt in flight holds its row past its own timeout", () => {
    expect(leaseUntil("webhook", 0)).toBeGreaterThan(WEBHOOK_TIMEOUT_MS);
  });
});

describe("inbox retries", () => {
  it("1 s doubling up to 5 minutes, jittered between half and all of it, and never given up", () => {
    expect([1, 2, 3, 4].map((n) => inboxRetryDelay(n, 0.999999))).toEqual([1000, 2000, 4000, 8000]);
    expect(inboxRetryDelay(1, 0)).toBe(500);
    expect(inboxRetryDelay(30, 0.999999)).toBe(300_000);
    expect(inboxRetryDelay(1000, 0.5)).toBe(225_000);
  });
});
