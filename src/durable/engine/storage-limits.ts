// What one run may store (RUN_EVENTS_LIMIT, RUN_BYTES_LIMIT), checked before each new step: a run
// that reaches a limit fails with a `limit` error naming the setting. The newest seq is known in
// memory (events/event-log.ts); the database's size is a call into SQLite (`sql.databaseSize`),
// which costs a step as much as its commit (far more under `wrangler dev`'s local tracing), so a
// slice asks it before its first new step and then only when what the slice wrote since could have
// brought the database to the limit.
import { limitsOf } from "../../config/settings";
import { newestSeq } from "../events/log/event-log";
import type { EngineContext } from "./engine-context";
import { RunLimitReached } from "./run-errors";

/** A character written is at most 3 bytes of UTF-8; SQLite's pages (half full after a split) and indexes at most double that. */
const BYTES_PER_CHAR = 6;
/** Each write may also start a new page in each of the few b-trees it touches (journal, event, their indexes, run, outbox). */
const BYTES_PER_WRITE = 6 * 4096;

/** Whether a database of `size` bytes may have reached `limit` after `chars` characters written in `writes` statements. */
export function sizeMayReach(limit: number, size: number, chars: number, writes: number): boolean {
  return size + chars * BYTES_PER_CHAR + writes * BYTES_PER_WRITE >= limit;
}

function eventsReached(engine: EngineContext): void {
  const { runEvents } = limitsOf(engine.env);
  if (newestSeq(engine.ctx.storage.sql) >= runEvents) {
    throw new RunLimitReached("RUN_EVENTS_LIMIT", `The run reached ${runEvents} stored events, this deployment's limit (RUN_EVENTS_LIMIT).`);
  }
}

function bytesReached(engine: EngineContext): number {
  const { runBytes } = limitsOf(engine.env);
  // The step rows the slice has not written yet count (journal/step-rows.ts).
  engine.stepRows?.flush();
  const size = engine.ctx.storage.sql.databaseSize;
  if (size >= runBytes) throw new RunLimitReached("RUN_BYTES_LIMIT", `The run reached ${runBytes} bytes of storage, this deployment's limit (RUN_BYTES_LIMIT).`);
  return size;
}

/** Throws RunLimitReached when the run holds as many events or bytes as this deployment allows (asks SQLite for the size). */
export function checkStorageLimits(engine: EngineContext): void {
  eventsReached(engine);
  bytesReached(engine);
}

/** checkStorageLimits for the steps of one slice, told what each write added (`wrote`). */
export class SliceLimits {
  private size: number | undefined;
  private chars = 0;
  private writes = 0;

  constructor(private readonly engine: EngineContext) {}

  check(): void {
    eventsReached(this.engine);
    if (this.size !== undefined && !sizeMayReach(limitsOf(this.engine.env).runBytes, this.size, this.chars, this.writes)) return;
    this.size = bytesReached(this.engine);
    this.chars = 0;
    this.writes = 0;
  }

  wrote(chars: number): void {
    this.chars += chars;
    this.writes++;
  }
}
