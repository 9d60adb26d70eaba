// timeoutSignal (src/lib/time/timeout-signal.ts): the deadline of one piece of outside work aborts as
// AbortSignal.timeout does (a TimeoutError, which the senders tell apart from other failures), and
// clear() leaves no timer behind once the work is over (what kept a Durable Object from hibernating).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { timeoutSignal } from "../../src/lib/time/timeout-signal";

describe("timeoutSignal", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("aborts with a TimeoutError when its time is up, not before", () => {
    const timeout = timeoutSignal(1_000, "HTTP tool t timed out");
    vi.advanceTimersByTime(999);
    expect(timeout.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(timeout.signal.aborted).toBe(true);
    const reason = timeout.signal.reason as DOMException;
    expect(reason.name).toBe("TimeoutError");
    expect(reason.message).toBe("HTTP tool t timed out");
  });

  it("leaves no timer once cleared, and never aborts", () => {
    const timeout = timeoutSignal(30_000);
    expect(vi.getTimerCount()).toBe(1);
    timeout.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(timeout.signal.aborted).toBe(false);
  });

  it("ends a fetch-like wait with its reason", async () => {
    const timeout = timeoutSignal(500);
    const waiting = new Promise((_resolve, reject) => timeout.signal.addEventListener("abort", () => reject(timeout.signal.reason)));
    vi.advanceTimersByTime(500);
    await expect(waiting).rejects.toMatchObject({ name: "TimeoutError", message: "No answer within 500 ms." });
  });
});
