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

export function timedState(state: DurableObjectState): { state: DurableObjectState; timings: Timings } {
  const timings: Timings = { parts: new Map(), sqlMs: 0 };
  const sql = state.storage.sql;
  const timedSql = new Proxy(sql, {
    get(target, prop) {
      if (prop === "exec") {
        return (query: string, ...bindings: unknown[]) => {
          const started = performance.now();
          const cursor = target.exec(query, ...(bindings as SqlStorageValue[]));
          const ms = performance.now() - started;
          timings.sqlMs += ms;
          add(timings, `sql: ${labelOf(query)}`, ms);
          return cursor;
        };
      }
      if (prop === "databaseSize") {
        const started = performance.now();
        const size = target.databaseSize;
        const ms = performance.now() - started;
        timings.sqlMs += ms;
        add(timings, "sql.databaseSize", ms);
        return size;
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const storage = state.storage;
  const timedStorage = new Proxy(storage, {
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
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const timed = new Proxy(state, {
    get(target, prop) {
      if (prop === "storage") return timedStorage;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { state: timed, timings };
}
