// A run's row as the API shows it (RunView), its body's fields from the redacted body only.
import type { RunView } from "../../../api/types";
import { redactBody } from "../../../api/redaction/redact-body";
import { addUsd } from "../../../lib/money";
import type { RunRow } from "./run-store";

/**
 * The run as GET /v1/runs/:id shows it; the listing, the inbox, webhooks, a parent's child list and
 * the run-started event are made from it. It takes the body's fields from the redacted body only.
 */
export function toRunView(run: RunRow): RunView {
  const body = redactBody(run.body);
  const view: RunView = {
    id: run.id,
    status: run.status,
    model: run.model,
    provider: run.provider,
    steps: run.steps,
    maxSteps: run.stepLimit,
    spentUsd: addUsd(run.spentUsd, run.childrenUsd),
    budgetUsd: body.budget?.usd ?? 0,
    lastSeq: run.lastSeq,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
  if (run.stoppedBy !== undefined) view.stoppedBy = run.stoppedBy;
  if (run.finalText !== undefined) view.finalText = run.finalText;
  if (run.stopReason !== undefined) view.stopReason = run.stopReason;
  if (run.hasFinal) view.final = run.final;
  if (run.waiting !== undefined) view.waiting = run.waiting;
  if (run.pending.length > 0) view.pending = run.pending;
  if (run.queuedMessages > 0) view.queuedMessages = run.queuedMessages;
  if (run.error !== undefined) view.error = run.error;
  if (run.guardrail !== undefined) view.guardrail = run.guardrail;
  if (body.metadata !== undefined) view.metadata = body.metadata;
  if (body.tags !== undefined) view.tags = body.tags;
  if (run.subject !== undefined) view.subject = run.subject;
  if (run.webhooks.length > 0) view.webhooks = run.webhooks;
  if (run.scheduleId !== undefined) view.scheduleId = run.scheduleId;
  if (run.firedAt !== undefined) view.firedAt = run.firedAt;
  if (run.agent !== undefined) view.agent = run.agent;
  if (run.parentId !== undefined) view.parentId = run.parentId;
  if (run.children.length > 0) view.children = run.children;
  if (run.forkedFrom !== undefined) view.forkedFrom = run.forkedFrom;
  if (run.inheritedUsd !== undefined) view.inheritedUsd = run.inheritedUsd;
  if (run.experiment !== undefined) view.experiment = run.experiment;
  return view;
}
