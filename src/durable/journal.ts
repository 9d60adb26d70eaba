// The run's journal in SQLite: step(key, work) returns a stored value, or runs work and writes its
// value, its cost and its events in one transaction. One row per step: a write is O(size of that
// step), never a rewrite of the history.
import type { Step, StepOutput, StoredLoopEvent } from "../loop/types";
import type { RunEvent } from "../api/types";
import { bumpCounters } from "./run-store";
import { lastSeq, type LoggedEvent } from "./event-log";
import { isoNow } from "./clock";

/** Values larger than this go to R2 by content hash (a SQLite row holds at most 2 MB). */
const INLINE_LIMIT = 1_900_000;

type BlobRef = { $blob: string };

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads every stored step of one key prefix (one segment) at once, so a replay does no per-step query. */
export async function loadJournal(sql: SqlStorage, blobs: R2Bucket, prefix: string): Promise<Map<string, unknown>> {
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const rows = sql.exec<{ key: string; value: string }>("SELECT key, value FROM journal WHERE key >= ? AND key < ?", prefix, upper).toArray();
  const stored = new Map<string, unknown>();
  for (const row of rows) {
    let value: unknown = JSON.parse(row.value);
    if (value !== null && typeof value === "object" && "$blob" in value) {
      const object = await blobs.get(`journal/${(value as BlobRef).$blob}`);
      if (object === null) throw new Error(`Journal value of ${row.key} is missing from R2.`);
      value = JSON.parse(await object.text());
    }
    stored.set(row.key.slice(prefix.length), value);
  }
  return stored;
}

export type JournalOptions = {
  sql: SqlStorage;
  storage: DurableObjectStorage;
  blobs: R2Bucket;
  prefix: string;
  stored: Map<string, unknown>;
  signal: AbortSignal;
  /** Called before a new step's work runs; may throw to end this slice. */
  beforeNewStep: (key: string) => void;
  /** The API event and its dedupe key for a stored loop event. */
  toRunEvent: (event: StoredLoopEvent) => RunEvent;
  /** Committed events, in seq order, to send to clients. */
  onCommit: (events: LoggedEvent[]) => void;
};

export function createJournal(options: JournalOptions): Step {
  const { sql, storage, blobs, prefix, stored } = options;
  return async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
    if (stored.has(key)) return stored.get(key) as T;
    options.beforeNewStep(key);
    const output = await work(options.signal);
    let text = JSON.stringify(output.value);
    if (text.length > INLINE_LIMIT) {
      const hash = await sha256Hex(text);
      await blobs.put(`journal/${hash}`, text);
      text = JSON.stringify({ $blob: hash } satisfies BlobRef);
    }
    const at = isoNow();
    const logged: LoggedEvent[] = [];
    storage.transactionSync(() => {
      sql.exec("INSERT INTO journal (key, value, cost) VALUES (?, ?, ?)", prefix + key, text, output.costUsd);
      let seq = lastSeq(sql);
      for (const event of output.events) {
        seq++;
        const body = JSON.stringify({ seq, at, ...options.toRunEvent(event) });
        sql.exec("INSERT INTO event (seq, dedupe, at, body) VALUES (?, NULL, ?, ?)", seq, at, body);
        logged.push({ seq, text: body });
      }
      bumpCounters(sql, { steps: key.startsWith("model/") ? 1 : 0, costUsd: output.costUsd, now: at });
    });
    // The value a replay would read: JSON round-tripped, so first runs and replays see the same data.
    const value = JSON.parse(JSON.stringify(output.value)) as T;
    stored.set(key, value);
    options.onCommit(logged);
    return value;
  };
}
