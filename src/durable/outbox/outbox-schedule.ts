// When the outbox tries again (pure: the clock and the random source are the caller's).
//
// Webhooks: exponential backoff with jitter for up to 24 hours. The first attempt is made at once;
// after the n-th failed attempt the next one waits min(10 s × 4^(n−1), 8 h), times a random factor
// between 0.75 and 1.25 (so receivers that fail together are not hit together again):
//
//   attempt   1      2      3      4          5           6           7          8     9
//   after     once   10 s   40 s   2 min 40   10 min 40   42 min 40   2 h 50 40  8 h   8 h
//   (nominal time since the first: 0, 10 s, 50 s, 3.5 min, 14 min, 57 min, 3 h 48, 11 h 48, 19 h 48)
//
// No attempt is made more than 24 hours after the first, and at most 9 are made: then the delivery
// is failed. An attempt waits at most WEBHOOK_TIMEOUT_MS for the receiver's answer.
//
// The inbox: its own object in the same deployment, which is expected back soon; it is tried again
// after min(1 s × 2^(n−1), 5 min) times a factor between 0.5 and 1, and never given up.

export const WEBHOOK_FIRST_DELAY_MS = 10_000;
export const WEBHOOK_MAX_DELAY_MS = 8 * 3600_000;
export const WEBHOOK_WINDOW_MS = 24 * 3600_000;
export const WEBHOOK_MAX_ATTEMPTS = 9;
export const WEBHOOK_TIMEOUT_MS = 10_000;

export const INBOX_FIRST_DELAY_MS = 1_000;
export const INBOX_MAX_DELAY_MS = 5 * 60_000;
export const INBOX_TIMEOUT_MS = 10_000;

/** How long after failed attempt number `attempts` (1-based) the next webhook attempt waits. `random` is in [0, 1). */
export function webhookRetryDelay(attempts: number, random: number): number {
  const nominal = Math.min(WEBHOOK_FIRST_DELAY_MS * 4 ** Math.max(0, attempts - 1), WEBHOOK_MAX_DELAY_MS);
  return Math.round(nominal * (0.75 + 0.5 * random));
}

/** Whether attempt number `attempts + 1` may still be made at `at`, the first having been due at `firstAt`. */
export function mayAttemptWebhook(attempts: number, firstAt: number, at: number): boolean {
  return attempts < WEBHOOK_MAX_ATTEMPTS && at <= firstAt + WEBHOOK_WINDOW_MS;
}

/** How long after failed inbox attempt number `attempts` (1-based) the next one waits. */
export function inboxRetryDelay(attempts: number, random: number): number {
  const nominal = Math.min(INBOX_FIRST_DELAY_MS * 2 ** Math.max(0, attempts - 1), INBOX_MAX_DELAY_MS);
  return Math.round(nominal * (0.5 + 0.5 * random));
}

/**
 * How long an attempt holds its row: committed before the attempt, it is when the row is due again
 * should the attempt never report back (the object died while it was in flight).
 */
export function leaseUntil(channel: "inbox" | "webhook", now: number): number {
  return now + (channel === "inbox" ? INBOX_TIMEOUT_MS : WEBHOOK_TIMEOUT_MS) + 5_000;
}
