// What the reconnect loop (./reconnecting.ts) needs: which errors no reconnect will
// cure, and a wait between tries that an abort cuts short.
import { RatchetError } from "../errors.ts";

/** Errors that no reconnect will cure: a refusal (bad token, unknown run, bad `after`). */
export function isFatal(error: unknown): boolean {
  return error instanceof RatchetError ? !error.retryable : error !== undefined;
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}

/** The wait before reconnect try number `failures` (1-based): doubling from minDelay up to maxDelay. */
export function reconnectDelay(failures: number, minDelay: number, maxDelay: number): number {
  return Math.min(maxDelay, minDelay * 2 ** (failures - 1));
}
