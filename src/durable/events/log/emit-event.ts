// A run event outside a step (run-started, waiting, answered, end, …): appended to the run's event
// log (event-log.ts) and sent to every watcher (fanout.ts). A step's own events commit with the
// step instead (../engine/journal/journal.ts), after the events the slice held for it
// (held-events.ts), which anything else that logs an event writes first.
import type { RunEvent } from "../../../api/types";
import { isoNow } from "../../storage/clock";
import type { EngineContext } from "../../engine/engine-context";
import { appendEvent, appendEventOutsideTransaction, forgetSeqOnFailure, type LoggedEvent } from "./event-log";
import type { HeldEvent } from "./held-events";

/** Logs and sends one event; false when its dedupe key was logged before (the event is not sent again). */
export function emitEvent(engine: EngineContext, event: RunEvent, dedupe?: string): boolean {
  // What the slice in progress holds happened first (a tool's call before the child it starts).
  // The step rows the slice has not written yet come first (../../engine/journal/step-rows.ts); a
  // failure there is the step's failure, as it would have been had each step written its own.
  engine.stepRows?.flush();
  let held: readonly LoggedEvent[] = [];
  try {
    held = engine.held?.flush(false) ?? [];
  } catch {
    // They cannot be written (a key past SQLite's limit, say): this event — a run's failure, often — still is.
    engine.held?.drop();
  }
  // After the held events, in this same turn: the last one's seq is the newest.
  const logged = appendEvent(engine.ctx.storage.sql, event, isoNow(), dedupe, held.at(-1)?.seq);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}

/**
 * Logs the events a slice held (held-events.ts), with their dedupe keys; the slice sends them.
 * `outside`: the caller is outside any transaction, so they are written in one of their own and
 * their seq is remembered; else they join the caller's.
 */
export function writeHeldEvents(engine: EngineContext, events: readonly HeldEvent[], outside: boolean): LoggedEvent[] {
  const { storage } = engine.ctx;
  // After the step rows the slice has not written yet, whose seqs come first.
  engine.stepRows?.flush();
  const at = isoNow();
  const append = outside ? appendEventOutsideTransaction : appendEvent;
  // Each after the one logged before it, in this same turn: its seq is the newest.
  const write = () => {
    const logged: LoggedEvent[] = [];
    for (const { event, dedupe } of events) {
      const one = append(storage.sql, event, at, dedupe, logged.at(-1)?.seq);
      if (one !== undefined) logged.push(one);
    }
    return logged;
  };
  return outside ? forgetSeqOnFailure(storage.sql, () => storage.transactionSync(write)) : write();
}
