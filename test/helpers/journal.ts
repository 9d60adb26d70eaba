// Journals for loop tests: one in memory, and one that dies at a chosen point, the way a
// process would, so a restart with the same store proves replay.
import type { Step, StepOutput, StoredLoopEvent } from "../../src/loop/types";

export type MemoryJournal = {
  step: Step;
  store: Map<string, unknown>;
  costs: Map<string, number>;
  events: StoredLoopEvent[];
  /** Every key whose work ran, in order (a key appears twice if its work ran twice). */
  worked: string[];
  signal: AbortSignal;
};

export function memoryJournal(
  store = new Map<string, unknown>(),
  signal: AbortSignal = new AbortController().signal,
): MemoryJournal {
  const journal: MemoryJournal = {
    store,
    costs: new Map(),
    events: [],
    worked: [],
    signal,
    step: async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
      if (store.has(key)) return store.get(key) as T;
      journal.worked.push(key);
      const { value, costUsd, events } = await work(signal);
      store.set(key, structuredClone(value));
      journal.costs.set(key, costUsd);
      journal.events.push(...events);
      return value;
    },
  };
  return journal;
}

export class Crash extends Error {
  constructor(readonly where: string) {
    super(`crash ${where}`);
    this.name = "Crash";
  }
}

export type CrashPoint = { at: number; where: "before-work" | "inside-work" | "after-commit" };

/**
 * A journal over `store` that dies at the `at`-th new step (0-based): before its work runs, after
 * its work ran but before the value is stored, or just after the value is stored.
 */
export function crashingJournal(store: Map<string, unknown>, crash: CrashPoint): MemoryJournal {
  const inner = memoryJournal(store);
  let fresh = 0;
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
    if (store.has(key)) return store.get(key) as T;
    const index = fresh++;
    if (index === crash.at && crash.where === "before-work") throw new Crash(`before ${key}`);
    if (index === crash.at && crash.where === "inside-work") {
      inner.worked.push(key);
      await work(inner.signal);
      throw new Crash(`inside ${key}`);
    }
    const value = await inner.step(key, work);
    if (index === crash.at) throw new Crash(`after ${key}`);
    return value;
  };
  return { ...inner, step };
}
