// A run as its subject's inbox lists it and as webhooks carry it (pure): the fields of its view
// that a status change moves, and the change's version. A waiting call's input that is too large
// to list is left out (`truncated`): the run's own view has it.
import type { RunSummary, RunView, SummaryWaiting } from "../../api/types";

/** A waiting call's input up to this many bytes of JSON is listed. */
export const WAITING_INPUT_MAX_BYTES = 32 * 1024;

function listedWaiting(waiting: NonNullable<RunView["waiting"]>): SummaryWaiting {
  const { kind, callId, name, input, batch, guardrail } = waiting;
  const listed = batch === undefined ? (JSON.stringify(input) ?? "null") : JSON.stringify([input, batch]);
  const bytes = new TextEncoder().encode(listed).byteLength;
  // A tool check's approval says which check asked and why, so a phone can show it.
  const asked = guardrail === undefined ? {} : { guardrail };
  if (bytes > WAITING_INPUT_MAX_BYTES) return { kind, callId, name, input: null, truncated: true, ...asked };
  return batch === undefined ? { kind, callId, name, input, ...asked } : { kind, callId, name, input, batch, ...asked };
}

export function summaryOf(view: RunView, version: number): RunSummary {
  const summary: RunSummary = {
    id: view.id,
    status: view.status,
    steps: view.steps,
    spentUsd: view.spentUsd,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    version,
  };
  if (view.stoppedBy !== undefined) summary.stoppedBy = view.stoppedBy;
  if (view.metadata !== undefined) summary.metadata = view.metadata;
  if (view.tags !== undefined) summary.tags = view.tags;
  if (view.waiting !== undefined) summary.waiting = listedWaiting(view.waiting);
  if (view.subject !== undefined) summary.subject = view.subject;
  if (view.scheduleId !== undefined) summary.scheduleId = view.scheduleId;
  if (view.firedAt !== undefined) summary.firedAt = view.firedAt;
  if (view.parentId !== undefined) summary.parentId = view.parentId;
  if (view.agent !== undefined) summary.agent = view.agent;
  return summary;
}
