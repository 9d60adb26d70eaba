// A run event outside a step (run-started, step-start, tool-call, waiting, answered, end, …):
// appended to the run's event log (event-log.ts) and sent to every watcher (fanout.ts). A step's
// own events commit with the step instead (../engine/journal/journal.ts).
import type { RunEvent } from "../../api/types";
import { isoNow } from "../storage/clock";
import type { EngineContext } from "../engine/engine-context";
import { appendEvent, appendEventOutsideTransaction } from "./event-log";

/** Logs and sends one event; false when its dedupe key was logged before (the event is not sent again). */
export function emitEvent(engine: EngineContext, event: RunEvent, dedupe?: string): boolean {
  const logged = appendEvent(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}

/** emitEvent for the engine's events between steps, which are written outside any transaction (event-log.ts says why that matters). */
export function emitLoopEvent(engine: EngineContext, event: RunEvent, dedupe: string): boolean {
  const logged = appendEventOutsideTransaction(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}
