// Setup for the rate-limits project (vitest.config.ts: its setup file). The Workers rate-limiting binding counts in
// windows aligned to the wall clock (miniflare's: the window is floor(now / period), period 60 s
// here), so a test that counts up to a limit and one past it fails if a new window starts between
// its counts: the count starts again from zero and the request past the limit is let through. No
// helper moves the rate limiter's clock, so before each test a window with less than MARGIN_MS left
// is waited out, and every test here counts inside one window (each takes well under the margin).
import { beforeEach } from "vitest";

const PERIOD_MS = 60_000;
const MARGIN_MS = 20_000;

/** How long to wait at `now` so that at least MARGIN_MS of the current window are left: 0, or until the next window begins. */
export function waitForWindow(now: number): number {
  const left = PERIOD_MS - (now % PERIOD_MS);
  return left >= MARGIN_MS ? 0 : left + 50;
}

beforeEach(async () => {
  const wait = waitForWindow(Date.now());
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
});
