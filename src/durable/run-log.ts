// Logging a run's events outside a step (run-started, step-start, tool-call, waiting, answered,
// end) and recording how a run stopped.
import type { RunEvent } from "../api/types";
import { isoNow } from "./clock";
import type { EngineContext } from "./engine-context";
import { appendEvent } from "./event-log";
import { readRun, updateRun, type RunChange } from "./run-store";

/** Logs and sends one event; false when its dedupe key was logged before (the event is not sent again). */
export function logEvent(engine: EngineContext, event: RunEvent, dedupe?: string): boolean {
  const logged = appendEvent(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}

/** Ends the run (or pauses it while waiting) and logs the matching event. */
export function recordStop(engine: EngineContext, change: RunChange, event: RunEvent | "end"): void {
  const { sql } = engine.ctx.storage;
  updateRun(sql, change, isoNow());
  if (event !== "end") {
    logEvent(engine, event);
    return;
  }
  const run = readRun(sql)!;
  const end: RunEvent = { type: "end", status: run.status, stoppedBy: run.stoppedBy ?? "done", spentUsd: run.spentUsd, steps: run.steps };
  if (run.finalText !== undefined) end.finalText = run.finalText;
  if (run.hasFinal) end.final = run.final;
  if (run.error !== undefined) end.error = run.error;
  logEvent(engine, end);
}
