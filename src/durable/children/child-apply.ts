// The parent's side of its children (docs/children.md): their reports applied (an end once, with
// its child-ended event), and a cancel or a delete passed down to the children still live.
import type { ChildReport } from "../../api/child-runs";
import type { EngineContext } from "../engine/engine-context";
import { emitEvent } from "../events/log/emit-event";
import { hasRun } from "../run/store/run-tables";
import { readRunState } from "../run/store/run-store";
import { runOf } from "../schedule/fire-run";
import { applyReport, liveChildren } from "./child-store";

export type Applied = {
  /** An end was news: the run's wait on it may go on. */
  ended: boolean;
  /** Children that reported being live to a run that was cancelled: cancelled again. */
  toCancel: string[];
};

/** Applies a batch of reports, in one transaction (a report of a child the run does not know is ignored). */
export function applyChildReports(engine: EngineContext, reports: readonly ChildReport[]): Applied {
  const { storage } = engine.ctx;
  const applied: Applied = { ended: false, toCancel: [] };
  if (!hasRun(storage.sql)) return applied;
  const sorted = [...reports].sort((a, b) => a.version - b.version);
  storage.transactionSync(() => {
    for (const report of sorted) {
      const result = applyReport(storage.sql, report, engine.now());
      if (result === undefined) continue;
      if (result.ended) {
        const end = result.row.end!;
        emitEvent(engine, { type: "child-ended", callId: result.row.callId, childId: report.childId, status: end.status, spentUsd: end.spentUsd }, `child-ended/${report.childId}`);
        applied.ended = true;
      }
    }
  });
  if (readRunState(storage.sql)?.status === "cancelled") {
    const live = new Set(liveChildren(storage.sql).map((row) => row.childId));
    applied.toCancel = [...new Set(sorted.filter((report) => report.end === undefined && live.has(report.childId)).map((report) => report.childId))];
  }
  return applied;
}

/** The run's children still live, before the run's tables go (a delete) or after its cancel. */
export function liveChildIds(engine: EngineContext): string[] {
  if (!hasRun(engine.ctx.storage.sql)) return [];
  return liveChildren(engine.ctx.storage.sql).map((row) => row.childId);
}

/** Cancels each child (its own cancel passes further down). A child that cannot be reached now is cancelled when it next reports. */
export async function cancelChildren(env: Env, childIds: readonly string[]): Promise<void> {
  await Promise.all(
    childIds.map(async (id) => {
      try {
        await runOf(env, id).cancel();
      } catch (error) {
        console.log(JSON.stringify({ msg: "ratchet.child-cancel-failed", childId: id, error: error instanceof Error ? error.message : String(error) }));
      }
    }),
  );
}
