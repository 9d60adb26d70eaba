// A Durable Object's state whose SQLite calls are timed, for the engine bench's breakdown: each
// statement by its SQL text, `databaseSize`, and what `transactionSync` costs beyond the work
// inside it. The clock inside the local workerd pool moves in whole milliseconds, but its ticks
// fall at random points of a step, so sums over thousands of calls are fair estimates.

export type Part = { ms: number; calls: number };

export type Timings = {
  parts: Map<string, Part>;
  /** Milliseconds inside timed SQL calls (statements and databaseSize). */
  sqlMs: number;
};

function add(timings: Timings, label: string, ms: number): void {
  const part = timings.parts.get(label) ?? { ms: 0, calls: 0 };
  part.ms += ms;
  part.calls++;
  timings.parts.set(label, part);
}

/** A short label for a statement: its first words, parameters and all. */
function labelOf(query: string): string {
  return query.replace(/\s+/g, " ").trim().slice(0, 70);
}

/** What `target` answers for `prop`, a method bound to it: the proxies' pass-through. */
function passThrough(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target) as unknown;
  return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

export function timedState(state: DurableObjectState): { state: DurableObjectState; timings: Timings } {
  const timings: Timings = { parts: new Map(), sqlMs: 0 };
  const timedSqlCall = <T>(label: string, call: () => T): T => {
    const started = performance.now();
    const result = call();
    const ms = performance.now() - started;
    timings.sqlMs += ms;
    add(timings, label, ms);
    return result;
  };
  const timedSql = new Proxy(state.storage.sql, {
    get(target, prop) {
      if (prop === "exec") return (query: string, ...bindings: unknown[]) => timedSqlCall(`sql: ${labelOf(query)}`, () => target.exec(query, ...(bindings as SqlStorageValue[])));
      if (prop === "databaseSize") return timedSqlCall("sql.databaseSize", () => target.databaseSize);
      return passThrough(target, prop);
    },
  });
  const timedStorage = new Proxy(state.storage, {
    get(target, prop) {
      if (prop === "sql") return timedSql;
      if (prop === "transactionSync") {
        return <T>(work: () => T): T => {
          let inner = 0;
          const started = performance.now();
          const result = target.transactionSync(() => {
            const begun = performance.now();
            try {
              return work();
            } finally {
              inner = performance.now() - begun;
            }
          });
          add(timings, "transactionSync (its own cost, work inside excluded)", performance.now() - started - inner);
          return result;
        };
      }
      return passThrough(target, prop);
    },
  });
  const timed = new Proxy(state, {
    get(target, prop) {
      return prop === "storage" ? timedStorage : passThrough(target, prop);
    },
  });
  return { state: timed, timings };
}
