// Polling for the benchmarks that watch a service from outside over minutes (chaos, long runs,
// tool timeouts), where a status read every few hundred milliseconds is the measurement's own
// pace. Tests never poll: they wait on events (test/helpers/changes.ts,
// test/e2e/support/run-events.ts).

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it is true; throws `message()` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, message: () => string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message());
    await sleep(everyMs);
  }
}
