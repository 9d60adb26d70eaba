// Waiting on a change instead of polling: whoever holds some state (a fake server's call log, a
// process's output) calls `changed()` whenever it changes, and a waiter checks its condition again
// then, and only then. The deadline's timer never re-checks; it turns a change that never comes
// into a failure with the waiter's message instead of a hang.

export type Changes = {
  /** Wakes every waiter to check its condition again. */
  changed(): void;
  /** Resolves once `check()` holds (at once, or after some `changed()`); rejects with `message()` after `timeoutMs`. */
  until(check: () => boolean, timeoutMs: number, message: () => string): Promise<void>;
};

export function changes(): Changes {
  const waiters = new Set<() => void>();
  return {
    changed() {
      for (const wake of [...waiters]) wake();
    },
    until(check, timeoutMs, message) {
      if (check()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        const wake = () => {
          let held: boolean;
          try {
            held = check();
          } catch (error) {
            done();
            return reject(error);
          }
          if (!held) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(message()));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
  };
}
