// The rate-limits project's guard (test/helpers/rate-limit-window.ts): a test starts with at least 20 s left in the
// limiter's 60 s wall-clock window, waiting for the next window when fewer are left.
import { describe, expect, it } from "vitest";
import { waitForWindow } from "../helpers/rate-limit-window";

describe("waitForWindow", () => {
  it("waits for no time with 20 s or more left in the window, else until just past the next window's start", () => {
    const minute = 29_000_000 * 60_000;
    expect(waitForWindow(minute)).toBe(0);
    expect(waitForWindow(minute + 40_000)).toBe(0);
    expect(waitForWindow(minute + 40_001)).toBe(19_999 + 50);
    expect(waitForWindow(minute + 59_999)).toBe(1 + 50);
    // Started after the wait, a test is in the next window with all of it left.
    expect(waitForWindow(minute + 59_999 + waitForWindow(minute + 59_999))).toBe(0);
  });
});
