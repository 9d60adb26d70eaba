// When a push is tried again (pure: the clock and the random source are the caller's).
//
// The first attempt is made as the change is applied. After the n-th failed attempt the next waits
// min(5 s × 3^(n−1), 10 min), times a random factor between 0.75 and 1.25, or what the push
// service's Retry-After asked if that is longer:
//
//   attempt   1      2     3      4      5          6          7       8
//   after     once   5 s   15 s   45 s   2 min 15   6 min 45   10 min  10 min
//
// No attempt is made more than an hour after the first, and at most 8 are made: a question that
// rang nobody within the hour is in the inbox all the same. An attempt waits at most
// PUSH_TIMEOUT_MS for the push service's answer.

export const PUSH_FIRST_DELAY_MS = 5_000;
export const PUSH_MAX_DELAY_MS = 10 * 60_000;
export const PUSH_WINDOW_MS = 3600_000;
export const PUSH_MAX_ATTEMPTS = 8;
export const PUSH_TIMEOUT_MS = 10_000;
/** How long a push service keeps a message for a device that is offline (the TTL header). */
export const PUSH_TTL_SECONDS = 24 * 3600;
/** The most pushes one delivery round (an alarm, or a change applied) starts; the rest stay due. */
export const PUSH_SENDS_PER_ROUND = 10;

/** How long after failed attempt number `attempts` (1-based) the next waits. `random` is in [0, 1). */
export function pushRetryDelay(attempts: number, random: number, retryAfterMs = 0): number {
  const nominal = Math.min(PUSH_FIRST_DELAY_MS * 3 ** Math.max(0, attempts - 1), PUSH_MAX_DELAY_MS);
  return Math.max(Math.round(nominal * (0.75 + 0.5 * random)), Math.min(retryAfterMs, PUSH_WINDOW_MS));
}

/** Whether attempt number `attempts + 1` may still be made at `at`, the push having been queued at `firstAt`. */
export function mayAttemptPush(attempts: number, firstAt: number, at: number): boolean {
  return attempts < PUSH_MAX_ATTEMPTS && at <= firstAt + PUSH_WINDOW_MS;
}

/** Committed before an attempt: when its row is due again should the attempt never report back. */
export function pushLeaseUntil(now: number): number {
  return now + PUSH_TIMEOUT_MS + 5_000;
}

/** What an answer means: delivered; the subscription is gone (404, 410); refused for good (another 4xx); or worth trying again. */
export function outcomeOf(status: number): "delivered" | "gone" | "refused" | "retry" {
  if (status >= 200 && status < 300) return "delivered";
  if (status === 404 || status === 410) return "gone";
  if (status >= 400 && status < 500 && status !== 408 && status !== 425 && status !== 429) return "refused";
  return "retry";
}
