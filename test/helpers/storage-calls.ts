// Every call into a run object's storage while some work runs, in order, whatever object and path
// makes it (the Worker's RPCs, alarms, views): the storage classes' own methods are wrapped in this
// isolate while the work runs (`sql.exec`, `sql.databaseSize`, the alarm's get, set and delete).
// Each call is named by its statement's first words. `npm run bench:calls` prints them per path;
// test/durable/path-calls.test.ts holds a path to its list.
import { runInDurableObject } from "cloudflare:test";
import { stubFor } from "./runs";

/** A call's name: `exec <the statement's first words>`, `databaseSize`, or the alarm method's name. */
function callName(query: string): string {
  return `exec ${query.replace(/\s+/g, " ").trim().split(/ \(| WHERE| VALUES/)[0]!.slice(0, 60)}`;
}

/** The calls into storage `work` made, in order. */
export async function storageCalls(work: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  // The storage classes' prototypes, found on an object's state (one that holds no run).
  const probe = await runInDurableObject(stubFor(`run_calls_probe_${crypto.randomUUID()}`) as unknown as DurableObjectStub, (_instance, state) => ({
    sql: Object.getPrototypeOf(state.storage.sql) as Record<string, unknown>,
    storage: Object.getPrototypeOf(state.storage) as Record<string, unknown>,
  }));
  const restore: (() => void)[] = [];
  const wrap = (target: Record<string, unknown>, name: string, label: (args: unknown[]) => string) => {
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = function (this: unknown, ...args: unknown[]) {
      calls.push(label(args));
      return original.apply(this, args);
    };
    restore.push(() => (target[name] = original));
  };
  wrap(probe.sql, "exec", ([query]) => callName(String(query)));
  for (const name of ["getAlarm", "setAlarm", "deleteAlarm"]) wrap(probe.storage, name, () => name);
  const size = Object.getOwnPropertyDescriptor(probe.sql, "databaseSize")!;
  Object.defineProperty(probe.sql, "databaseSize", {
    configurable: true,
    get(this: unknown) {
      calls.push("databaseSize");
      return size.get!.call(this);
    },
  });
  restore.push(() => Object.defineProperty(probe.sql, "databaseSize", size));
  try {
    await work();
  } finally {
    for (const undo of restore) undo();
  }
  return calls;
}

/** How many times each call was made. */
export function tally(calls: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call, (counts.get(call) ?? 0) + 1);
  return counts;
}
