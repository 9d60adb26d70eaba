// A deadline for one piece of outside work (a fetch and the read of its answer), as a signal that
// aborts with a `TimeoutError` after `ms`, and `clear()` to stop its timer once the work is over.
// Not AbortSignal.timeout: its timer stays set for its whole length after an answer came, and a
// Durable Object with a timer pending is neither evicted nor hibernated until it fires (an HTTP
// tool's 30 s, a webhook's 10 s kept an idle run's object in memory that long after each call).

export type TimeoutSignal = {
  readonly signal: AbortSignal;
  /** Stops the timer; call it in a `finally` once the work the deadline bounds is over. */
  clear(): void;
};

export function timeoutSignal(ms: number, message = `No answer within ${ms} ms.`): TimeoutSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(message, "TimeoutError")), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
