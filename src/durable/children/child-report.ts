// A child run's side of the parent channel (docs/children.md): what each status change tells the
// parent (written into the outbox with the change, report-change.ts), and its delivery to the
// parent's object within a time limit (a busy or unreachable parent is tried again later).
import type { InboxEventType } from "../../api/types";
import type { ChildEnd, ChildReport } from "../../api/child-runs";
import { deliverWithin } from "../outbox/deliver-within";
import type { RunRow } from "../run/store/run-store";
import { runOf } from "../schedule/fire-run";
import { addUsd } from "../../lib/money";

/** The report of change `type` of child run `run`: its status and spend, and its end when it ended (or was deleted). */
export function childReportOf(run: RunRow, type: InboxEventType, version: number): ChildReport {
  const spentUsd = addUsd(run.spentUsd, run.childrenUsd);
  const report: ChildReport = { childId: run.id, version, status: run.status, spentUsd };
  const deleted = type === "run-deleted";
  if (type === "run-ended" || deleted) {
    // A child deleted before it ended ends for its parent as cancelled.
    const status = deleted && (run.status === "running" || run.status === "waiting") ? "cancelled" : run.status;
    const end: ChildEnd = { childId: run.id, status, hasFinal: run.hasFinal, spentUsd };
    if (run.stoppedBy !== undefined) end.stoppedBy = run.stoppedBy;
    if (run.finalText !== undefined) end.finalText = run.finalText;
    if (run.hasFinal) end.final = run.final;
    if (run.error !== undefined) end.error = run.error;
    report.status = status;
    report.end = end;
  }
  return report;
}

export async function deliverToParent(env: Env, parentId: string, reports: ChildReport[]): Promise<void> {
  await deliverWithin("The parent run", runOf(env, parentId).childReport(reports));
}
