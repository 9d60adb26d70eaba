// What `wrangler dev`'s local trace collector (miniflare's local observability, on by default since
// wrangler 4.1xx) kept of a server's invocations, read back after a benchmark: its trace store is a
// SQLite file under the server's --persist-to folder, one row per span (the invocation's own, each
// call into storage, each call to another object or service), with wall-clock start and duration
// in whole milliseconds. For the step bench it gives the server's side of a run's timeline: when
// the POST was handled, when the alarm fired and ended, and when the GET that saw the run finished
// was read and answered. Read-only; a server started with local observability off has no store.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** One invocation (a root span: a request, an alarm) and what it called. */
export type Invocation = {
  name: string;
  start: number;
  end: number;
  /** Its calls into storage (SQL statements, the database's size, the alarm's get and set). */
  storageCalls: number;
  /** When its last call into storage ended (its start when it made none). */
  lastStorageEnd: number;
  /** Its calls to objects and services (RPCs, fetches). */
  subrequests: number;
};

/** The trace store's database file under a server's --persist-to folder, if it kept one. */
export function traceStoreOf(persistTo: string): string | undefined {
  const dir = join(persistTo, "v3", "observability", "miniflare-wobs-trace-store");
  if (!existsSync(dir)) return undefined;
  const file = readdirSync(dir).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  return file === undefined ? undefined : join(dir, file);
}

type Row = { trace_id: string; name: string; start_ms: number; duration_ms: number | null };

/** The invocations that began in [from, to] (ms since the epoch), in order of their start. */
export function invocationsBetween(file: string, from: number, to: number): Invocation[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const roots = db.prepare("SELECT trace_id, name, start_ms, duration_ms FROM spans WHERE parent_id IS NULL AND start_ms BETWEEN ? AND ? ORDER BY start_ms").all(from, to) as Row[];
    const children = db.prepare("SELECT name, start_ms, duration_ms FROM spans WHERE trace_id = ? AND parent_id IS NOT NULL");
    return roots.map((root) => {
      const spans = children.all(root.trace_id) as Row[];
      const storage = spans.filter((span) => span.name.startsWith("durable_object_storage"));
      return {
        name: root.name,
        start: root.start_ms,
        end: root.start_ms + (root.duration_ms ?? 0),
        storageCalls: storage.length,
        lastStorageEnd: Math.max(root.start_ms, ...storage.map((span) => span.start_ms + (span.duration_ms ?? 0))),
        subrequests: spans.filter((span) => span.name === "durable_object_subrequest" || span.name === "fetch").length,
      };
    });
  } finally {
    db.close();
  }
}
