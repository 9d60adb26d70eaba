// A scripted turn's `hold`: the call waits until the test releases the hold's name, so a test can
// act while a model call is known to be in flight (send a message, interrupt, kill the process)
// instead of racing a `delayMs` against a browser. A release is remembered: one that comes before
// the hold is reached lets the call through at once, and so does every later hold of that name.
import { z } from "zod";

/** What a hold may be called: it is a path segment of the release route, so letters, digits, `.`, `_` and `-`. */
export const holdNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "A hold's name is 1 to 64 letters, digits, '.', '_' or '-'.");

/** Waits until `name` is released (at once when it was); rejects with the signal's reason when it aborts. */
export type WaitForRelease = (name: string, signal: AbortSignal) => Promise<void>;

/** The releases of one process, and the calls waiting for them. The run object keeps the releases durably as well (src/durable/engine/provider/scripted-holds.ts). */
export class Holds {
  private readonly released = new Set<string>();
  private readonly waiting = new Map<string, Set<() => void>>();

  /** True when `name` was released here. */
  isReleased(name: string): boolean {
    return this.released.has(name);
  }

  /** Releases `name`: every call waiting on it goes on, and later holds of it do not wait. */
  release(name: string): void {
    this.released.add(name);
    const waiters = this.waiting.get(name);
    this.waiting.delete(name);
    for (const resume of waiters ?? []) resume();
  }

  wait(name: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.released.has(name)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(name) ?? new Set<() => void>();
      this.waiting.set(name, waiters);
      const resume = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        waiters.delete(resume);
        if (waiters.size === 0 && this.waiting.get(name) === waiters) this.waiting.delete(name);
        reject(signal.reason);
      };
      waiters.add(resume);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
