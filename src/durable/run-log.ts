// Logging a run's events outside a step (run-started, step-start, tool-call, waiting, answered,
// end), recording how a run stopped, and the operator's log lines: one JSON line per run end and
// per failure, never with a token, a key or a stack.
import type { RunEvent } from "../api/types";
import { limitsOf } from "../config/settings";
import { ProviderError } from "../providers";
import { isoNow } from "./clock";
import type { EngineContext } from "./engine-context";
import { appendEvent, appendEventOutsideTransaction } from "./event-log";
import { reportChange } from "./report-change";
import { readRun, updateRun, type RunChange, type RunRow } from "./run-store";

/** Logs and sends one event; false when its dedupe key was logged before (the event is not sent again). */
export function logEvent(engine: EngineContext, event: RunEvent, dedupe?: string): boolean {
  const logged = appendEvent(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}

/** logEvent for the engine's events between steps, which are written outside any transaction (event-log.ts says why that matters). */
export function logLoopEvent(engine: EngineContext, event: RunEvent, dedupe: string): boolean {
  const logged = appendEventOutsideTransaction(engine.ctx.storage.sql, event, isoNow(), dedupe);
  if (logged !== undefined) engine.fanout.sendLogged([logged]);
  return logged !== undefined;
}

/** One line for operators (`wrangler tail`, Workers Logs): what ended, how, and at what cost. */
export function logRunEnd(run: RunRow): void {
  const line: Record<string, unknown> = {
    msg: "ratchet.run-end",
    runId: run.id,
    status: run.status,
    stoppedBy: run.stoppedBy ?? null,
    errorCode: run.error?.code ?? null,
    steps: run.steps,
    spentUsd: run.spentUsd,
    model: run.model,
    provider: run.provider,
  };
  if (run.error !== undefined) line.error = run.error.message;
  console.log(JSON.stringify(line));
}

/** One line per failure that ends a run: a provider's (after its retries) or any other, by name and message only. */
export function logFailure(run: Pick<RunRow, "id" | "model" | "provider">, error: unknown): void {
  const line: Record<string, unknown> =
    error instanceof ProviderError
      ? { msg: "ratchet.provider-failure", runId: run.id, provider: run.provider, model: run.model, status: error.status ?? null, retryable: error.retryable, message: error.message }
      : { msg: "ratchet.run-error", runId: run.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  console.log(JSON.stringify(line));
}

/** When a run that stops now deletes itself (RUN_RETENTION_DAYS). */
export function deleteAtFrom(engine: EngineContext, now: number): number {
  return now + limitsOf(engine.env).retentionDays * 24 * 3600 * 1000;
}

/**
 * Ends the run (or pauses it while waiting) and logs the matching event; the run's retention starts
 * now. The change, its event and its outbox rows (inbox, webhooks) commit together.
 */
export function recordStop(engine: EngineContext, change: RunChange, event: RunEvent | "end"): void {
  const { sql } = engine.ctx.storage;
  const now = engine.now();
  const ended = engine.ctx.storage.transactionSync(() => {
    updateRun(sql, { ...change, deleteAt: deleteAtFrom(engine, now) }, new Date(now).toISOString());
    if (event !== "end") {
      logEvent(engine, event);
      reportChange(engine, event.type === "waiting" ? "run-waiting" : "run-ended");
      return undefined;
    }
    const run = readRun(sql)!;
    const end: RunEvent = { type: "end", status: run.status, stoppedBy: run.stoppedBy ?? "done", spentUsd: run.spentUsd, steps: run.steps };
    if (run.finalText !== undefined) end.finalText = run.finalText;
    if (run.hasFinal) end.final = run.final;
    if (run.error !== undefined) end.error = run.error;
    logEvent(engine, end);
    reportChange(engine, "run-ended");
    return run;
  });
  if (ended !== undefined) logRunEnd(ended);
}
