// A run object killed at a call into SQLite, for the crash-point tests (test/durable/*crash*.test.ts,
// loop-guards.test.ts): its storage dies at the n-th call and every one after it, as a killed
// process's would, and a transaction it was in is rolled back.
import { runInDurableObject } from "cloudflare:test";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "./engine";
import type { RunStub } from "./runs";
import { watchedState } from "./watched-sql";

/** What a killed call throws. */
export class Killed extends Error {}

/**
 * The object's state whose SQLite dies at its `at`-th call (1-based): that call and every one after
 * it throw. `calls()`: how many calls were made (the killed one included).
 */
export function killedAt(state: DurableObjectState, at: number): { state: DurableObjectState; calls: () => number } {
  let calls = 0;
  const killed = () => new Killed(`killed at call ${at}`);
  const watched = watchedState(state, {
    exec: () => {
      if (++calls >= at) throw killed();
    },
    transaction: () => {
      if (calls >= at) throw killed();
    },
  });
  return { state: watched, calls: () => calls };
}

/**
 * One slice of the run in its object, killed at call `at` (Number.POSITIVE_INFINITY: never, to count
 * a whole slice's calls); the calls it made. The slice records a failure when a call throws; that
 * write dies too. An error that is not the kill fails the test.
 */
export async function sliceKilledAt(stub: RunStub, at: number): Promise<number> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    const killed = killedAt(state, at);
    await runSlice(engineFor(killed.state), new AbortController()).catch((error: unknown) => {
      if (!(error instanceof Killed)) throw error;
    });
    return killed.calls();
  });
}
