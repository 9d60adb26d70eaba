// A status change, told to whoever listens: the subject's inbox (every change of a run that has a
// subject), the schedule whose fire made the run (every change: its index of runs, and when the run
// ends, its overlap), the index of the runs of the stored agent it was made from (every change), the experiment whose case the run is (its end and its wait: the case ends with them), a child run's parent (every change: its record of the child, and the end) and the webhook receivers (waiting and the three ends), as outbox rows. Called inside
// the change's own transaction, right after the run row was updated: the rows commit with the
// change or not at all, and the alarm delivers them (src/durable/outbox/outbox.ts).
import type { InboxEvent, InboxEventType, WebhookEventType, WebhookPayload } from "../../api/types";
import type { EngineContext } from "../engine/engine-context";
import { insertOutbox } from "./outbox-store";
import { bumpVersion, readRun, type RunRow } from "../run/store/run-store";
import { toRunView } from "../run/store/run-view";
import { summaryOf } from "./run-summary";
import { childReportOf } from "../children/child-report";
import { traceparentOf } from "../telemetry/propagation";

function webhookTypeOf(type: InboxEventType, run: RunRow): WebhookEventType | undefined {
  if (type === "run-waiting") return "run.waiting";
  if (type !== "run-ended") return undefined;
  if (run.status === "finished" || run.status === "failed" || run.status === "cancelled") return `run.${run.status}`;
  return undefined;
}

/** The deployment's receiver (WEBHOOK_URL), read when the change happens; its URL is read again at each attempt. */
function deploymentWebhook(env: Env): boolean {
  return typeof env.WEBHOOK_URL === "string" && env.WEBHOOK_URL.trim() !== "";
}

/**
 * `callId`: the answered call; `spanKey`: the span of the stop a webhook tells (its `traceparent`),
 * from writeStopSpans; `inboxOnly`: a change of what a stopped run spent (a compaction on demand),
 * told to its subject's inbox alone, which releases the reservation it was made under; `version`:
 * the change's version, when the caller's own update of the run bumped it (a stop's), else bumped here.
 */
export type ChangeDetail = { callId?: string; spanKey?: string; inboxOnly?: true; version?: number };

/**
 * Reports the run's current state as change `type`. `current`: the run's row as the caller read it
 * after the change (a stop reads it for its event), not read again; what a change is told with
 * (its summary, its ends, its receivers) is the same row either way.
 */
export function reportChange(engine: EngineContext, type: InboxEventType, detail: ChangeDetail = {}, current?: RunRow): void {
  const { sql } = engine.ctx.storage;
  const version = detail.version ?? bumpVersion(sql);
  const run = current ?? readRun(sql)!;
  const summary = summaryOf(toRunView(run), version);
  const now = engine.now();
  const eventId = `${run.id}/change/${version}`;
  if (run.subject !== undefined) {
    const event: InboxEvent = { type, run: summary };
    if (detail.callId !== undefined) event.callId = detail.callId;
    insertOutbox(sql, { channel: "inbox", subject: run.subject, eventId, type, version, body: JSON.stringify(event) }, now);
  }
  if (detail.inboxOnly === true) return;
  if (run.scheduleId !== undefined) {
    const event: InboxEvent = { type, run: summary };
    insertOutbox(sql, { channel: "schedule", scheduleId: run.scheduleId, eventId, type, version, body: JSON.stringify(event) }, now);
  }
  if (run.agent !== undefined) {
    const event: InboxEvent = { type, run: summary };
    insertOutbox(sql, { channel: "agent", agentName: run.agent.name, eventId, type, version, body: JSON.stringify(event) }, now);
  }
  // An experiment waits for its case's end (or its wait) alone: a row of any other change would be a
  // delivery the end queues behind (one batch of a channel is in flight at a time).
  if (run.experiment !== undefined && (type === "run-ended" || type === "run-waiting")) {
    const event: InboxEvent = { type, run: summary };
    insertOutbox(sql, { channel: "experiment", experimentId: run.experiment.id, eventId, type, version, body: JSON.stringify(event) }, now);
  }
  if (run.parentId !== undefined) {
    insertOutbox(sql, { channel: "parent", parentId: run.parentId, eventId, type, version, body: JSON.stringify(childReportOf(run, type, version)) }, now);
  }
  const hook = webhookTypeOf(type, run);
  if (hook === undefined) return;
  const payload: WebhookPayload = { type: hook, timestamp: summary.updatedAt, data: { run: summary } };
  if (run.status === "failed" && run.error !== undefined) payload.data.error = run.error;
  const body = JSON.stringify(payload);
  const deployment = deploymentWebhook(engine.env);
  const own = run.body.webhook?.url;
  // The run's trace is read only for a row that carries it (a webhook's): a run with no receiver does not ask.
  if (!deployment && own === undefined) return;
  const trace = detail.spanKey === undefined ? {} : { traceparent: traceparentOf(sql, run.id, detail.spanKey) };
  if (deployment) insertOutbox(sql, { channel: "webhook", target: "deployment", eventId, type: hook, version, body, ...trace }, now);
  if (own !== undefined) insertOutbox(sql, { channel: "webhook", target: "run", url: own, eventId, type: hook, version, body, ...trace }, now);
}
