// How a run stops: it ends (done, failed, cancelled) or pauses while it waits for a person. The
// change, its event and its outbox rows (inbox, webhooks) commit together, and the run's
// retention (RUN_RETENTION_DAYS) starts then.
import type { RunEvent } from "../../../api/types";
import { limitsOf } from "../../../config/settings";
import type { EngineContext } from "../../engine/engine-context";
import { emitEvent } from "../../events/log/emit-event";
import { logRunEnd } from "../operator-log";
import { reportChange } from "../../outbox/report-change";
import { readRun, readRunCore, updateRun, updateRunAndRead, type RunChange } from "../store/run-store";
import { writeStopSpans } from "../../telemetry/stop-spans";
import { addUsd } from "../../../lib/money";

/** When a run that stops now deletes itself (RUN_RETENTION_DAYS). */
export function deleteAtFrom(engine: EngineContext, now: number): number {
  return now + limitsOf(engine.env).retentionDays * 24 * 3600 * 1000;
}

/** What an `end` event says beyond the run's row: the final answer is still short after its one more call. */
export type EndNotes = { shortAnswer?: true };

/**
 * Ends the run (or pauses it while waiting) and logs the matching event; the run's retention starts
 * now. The change, its event and its outbox rows (inbox, webhooks) commit together.
 */
export function recordStop(engine: EngineContext, change: RunChange, event: RunEvent | "end", notes: EndNotes = {}): void {
  const { sql } = engine.ctx.storage;
  const now = engine.now();
  const ended = engine.ctx.storage.transactionSync(() => {
    const before = readRunCore(sql);
    const stop: RunChange = { ...change, deleteAt: deleteAtFrom(engine, now) };
    const at = new Date(now).toISOString();
    // The row as the change left it comes back from the change's own statement, with the body read
    // just before; the same statement bumps the version the change is reported with (reportChange).
    const run = before === undefined ? (updateRun(sql, stop, at), readRun(sql)!) : updateRunAndRead(sql, { ...stop, version: "next" }, at, before.body);
    const version = before === undefined ? {} : { version: run.version };
    // The segment's invoke_agent span (or, for a cancel while waiting, the end of the wait): the span its webhooks carry.
    const span = before === undefined ? {} : { spanKey: writeStopSpans(engine, before, run) };
    if (event !== "end") {
      emitEvent(engine, event);
      reportChange(engine, event.type === "waiting" ? "run-waiting" : "run-ended", { ...span, ...version }, run);
      return undefined;
    }
    const end: RunEvent = { type: "end", status: run.status, stoppedBy: run.stoppedBy ?? "done", spentUsd: addUsd(run.spentUsd, run.childrenUsd), steps: run.steps };
    if (run.finalText !== undefined) end.finalText = run.finalText;
    if (run.hasFinal) end.final = run.final;
    if (notes.shortAnswer === true) end.shortAnswer = true;
    if (run.guardrail !== undefined) end.guardrail = run.guardrail;
    if (run.error !== undefined) end.error = run.error;
    emitEvent(engine, end);
    reportChange(engine, "run-ended", { ...span, ...version }, run);
    return run;
  });
  if (ended !== undefined) logRunEnd(ended);
}
