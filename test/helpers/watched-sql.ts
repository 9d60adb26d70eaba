// A Durable Object's state whose SQLite calls a test sees, and may break: each hook runs before the
// real call (`sql.exec`, `sql.databaseSize`, `storage.transactionSync`), and a hook that throws
// stops it — a test counts a slice's statements, or kills its storage at the n-th call.

export type SqlHooks = {
  /** Before each `sql.exec`, with its statement and its bindings. */
  exec?: (query: string, bindings: readonly SqlStorageValue[]) => void;
  /** Before each read of `sql.databaseSize`. */
  databaseSize?: () => void;
  /** Before each `storage.transactionSync`. */
  transaction?: () => void;
};

/** `state` with its storage's calls passed through `hooks`. */
export function watchedState(state: DurableObjectState, hooks: SqlHooks): DurableObjectState {
  const bind = (target: object, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target) as unknown;
    return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  };
  const sql = new Proxy(state.storage.sql, {
    get(target, prop) {
      if (prop === "exec") {
        return (query: string, ...bindings: SqlStorageValue[]) => {
          hooks.exec?.(query, bindings);
          return target.exec(query, ...bindings);
        };
      }
      if (prop === "databaseSize") hooks.databaseSize?.();
      return bind(target, prop);
    },
  });
  const storage = new Proxy(state.storage, {
    get(target, prop) {
      if (prop === "sql") return sql;
      if (prop === "transactionSync") {
        return <T>(work: () => T): T => {
          hooks.transaction?.();
          return target.transactionSync(work);
        };
      }
      return bind(target, prop);
    },
  });
  return new Proxy(state, { get: (target, prop) => (prop === "storage" ? storage : bind(target, prop)) });
}
