// The spans a run's stop writes, in the stop's transaction: a segment that stops (to wait for a
// person, at its end, on a failure) exports its invoke_agent span and marks its end; a run that
// is cancelled while it waits exports the wait instead (its segment's span was exported when it
// stopped to wait); an answer ends the wait too (writeAnswerSpans).
import type { EngineContext } from "../engine/engine-context";
import { readSegment } from "../run/store/segment-store";
import { type RunRow, type RunCore } from "../run/store/run-store";
import { segmentScope, writePersonWait, writeSegmentSpan } from "./span-writer";
import { personWaitKey, segmentSpanKey } from "./span-ids";
import { markSegmentEnd } from "./trace-store";
import { usd } from "../../lib/money";

/**
 * `before` and `after`: the run's row before and after the stop's change. Returns the key of the
 * span the stop ends (the segment's invoke_agent, or the wait a cancel ended), which is the span a
 * webhook telling the stop carries, whether or not the export is on.
 */
export function writeStopSpans(engine: EngineContext, before: RunCore, after: RunRow): string {
  const { sql } = engine.ctx.storage;
  const now = Date.now();
  const scope = segmentScope(engine, after, after.segment);
  if (before.status === "waiting") {
    if (before.waiting !== undefined) writePersonWait(engine, scope, { endedAt: now, reason: before.waiting.kind, callId: before.waiting.callId, outcome: "cancelled" });
    return personWaitKey(after.segment);
  }
  const segment = readSegment(sql, after.segment);
  const stop = { endedAt: now, status: after.status, stoppedBy: after.stoppedBy ?? (after.status === "failed" ? "error" : "done"), costUsd: Math.max(0, usd(after.spentUsd - segment.spentBefore)), messages: segment.messages };
  writeSegmentSpan(engine, scope, after.error === undefined ? stop : { ...stop, error: after.error });
  return segmentSpanKey(after.segment, markSegmentEnd(sql, after.segment, now).attempt);
}

/** In the answer's transaction, before the next segment starts: the wait for the person on `before`'s segment ended. */
export function writeAnswerSpans(engine: EngineContext, before: RunRow, callId: string): void {
  if (before.waiting === undefined) return;
  writePersonWait(engine, segmentScope(engine, before, before.segment), { endedAt: Date.now(), reason: before.waiting.kind, callId, outcome: "answered" });
}
