// Compaction on demand (POST /v1/runs/:id/compact). A waiting or finished run with the loop's
// summary is compacted now: one summary step under the current segment's journal (its event and
// its cost commit with it), and the summary record joins the segment's history, so the next
// segment (an answer, a continue) starts from it. A running or failed run, and a run whose
// provider compacts natively (which only happens inside a model call), get the compaction before
// the run's next model call instead (../engine/incoming/compaction-request-store.ts). Only when no slice runs (the
// object's exclusive queue), so the next model call has not begun. A finished run of a subject
// reserves its budget's rest in the subject's day first (its reservation was released when it
// ended), and the summary's step tells the inbox what it cost, which releases that reservation.
import type { CompactRequestBody, Outcome, RunView } from "../../api/types";
import { BudgetExhausted, compactNow } from "../../loop";
import { checkStorageLimits } from "../engine/storage-limits";
import type { EngineContext } from "../engine/engine-context";
import { requestCompaction } from "../engine/incoming/compaction-request-store";
import { createJournal, loadJournal } from "../engine/journal/journal";
import { loopOptions } from "../engine/loop-options";
import { logFailure } from "../run/operator-log";
import { fail, notFound, ok } from "../run/outcome";
import { RunLimitReached } from "../engine/run-errors";
import { storedRunEvent } from "../events/log/run-events";
import { stepSpanHook } from "../telemetry/step-hook";
import { readRun, type RunRow } from "../run/store/run-store";
import { readSegment, saveSegmentResult } from "../run/store/segment-store";
import { toRunView } from "../run/store/run-view";
import { dropSpend, reserveSpend, spendAskOf, type SpendAsk } from "../inbox/spend-reservation";
import { reportChange } from "../outbox/report-change";
import { writeSpendDay } from "../inbox/spend-day";

/**
 * A finished run's reservation was released when it ended, so a summary made now reserves first:
 * what its budget has left, in its subject's day, under the run's next change (402 when it does
 * not fit). A child run's budget is its parent's; a waiting run's reservation still holds.
 */
function spendAskFor(engine: EngineContext, run: RunRow): SpendAsk | undefined {
  if (run.status !== "finished" || run.subject === undefined || run.parentId !== undefined) return undefined;
  return spendAskOf(engine.env, run, run.subject, run.version + 1, run.dayLimitUsd);
}

export async function compactRun(engine: EngineContext, body: CompactRequestBody): Promise<Outcome<RunView>> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  if (run.status === "cancelled") return fail(409, "A cancelled run is not compacted: it never goes on.");
  const segment = readSegment(sql, run.segment);
  const prefix = `s${segment.n}/`;
  const signal = new AbortController().signal;
  const spend = spendAskFor(engine, run);
  let spendDay: string | undefined;
  let charged = false;
  const { spanOf } = stepSpanHook(engine, run, segment.n, prefix);
  const step = createJournal({
    sql,
    storage: engine.ctx.storage,
    prefix,
    stored: loadJournal(sql, prefix),
    signal,
    beforeNewStep: () => checkStorageLimits(engine),
    toRunEvent: (event) => storedRunEvent(event, segment.stepsBefore),
    // The summary step's compaction span (docs/traces.md), and, in the same transaction, the change
    // that tells the subject's inbox what the run spent now: it releases the summary's reservation
    // counting the summary's cost, once, whatever dies after.
    ...(spanOf === undefined ? {} : { spanOf }),
    onStepCommit: () => {
      if (spend === undefined || charged) return;
      charged = true;
      reportChange(engine, "run-ended", { inboxOnly: true });
      if (spendDay !== undefined) writeSpendDay(sql, spendDay);
    },
    onCommit: (events) => engine.fanout.sendLogged(events),
  });
  const options = loopOptions(engine, run, segment, step, signal, () => {});
  const mode = options.compaction?.mode ?? "off";
  if (mode === "off") return fail(409, 'This run\'s compaction is off (compaction.mode "off"): it is never compacted.');
  const beforeNext = () => {
    requestCompaction(sql, run.steps + 1, body.instructions);
    return ok(toRunView(readRun(sql)!));
  };
  if (run.status === "running" || run.status === "failed" || mode === "native") return beforeNext();
  if (spend !== undefined) {
    const reserved = await reserveSpend(engine.env, spend);
    if (!reserved.ok) return reserved;
    spendDay = reserved.value.day;
  }
  const found = run;
  const summarize = async (): Promise<Outcome<RunView>> => {
    try {
      const compacted = await compactNow({
        generate: options.generate,
        model: options.model,
        messages: segment.result ?? segment.messages,
        step,
        // Spend as the run stands (the segment's own steps are not replayed here).
        budget: { ...options.budget!, spentUsd: found.spentUsd },
        compaction: options.compaction!,
        ...(options.maxToolResultTokens === undefined ? {} : { maxToolResultTokens: options.maxToolResultTokens }),
        signal,
        steps: found.steps - segment.stepsBefore,
        ...(body.instructions === undefined ? {} : { instructions: body.instructions }),
      });
      if (compacted.compacted) saveSegmentResult(sql, segment.n, compacted.messages);
    } catch (error) {
      return refusedOrLater(found, error, beforeNext);
    }
    return ok(toRunView(readRun(sql)!));
  };
  try {
    return await summarize();
  } finally {
    // No summary was made (nothing to compact, a refusal, a failure): the hold goes back at once.
    if (spend !== undefined && !charged) await dropSpend(engine.env, spend);
  }
}

/** A spent budget or a reached limit refuses the compaction (409); a provider's failure leaves it for before the next model call. */
function refusedOrLater(run: RunRow, error: unknown, beforeNext: () => Outcome<RunView>): Outcome<RunView> {
  if (error instanceof BudgetExhausted) return fail(409, `The run's budget is spent ($${error.spentUsd} of $${error.usd}): a compaction is a model call.`);
  if (error instanceof RunLimitReached) return fail(409, error.message);
  logFailure(run, error);
  return beforeNext();
}
