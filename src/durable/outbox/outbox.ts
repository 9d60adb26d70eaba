// Delivering the run's outbox (src/durable/outbox/outbox-store.ts), at least once. Every attempt first
// commits its lease (the attempt is counted and the row is due again should the object die before
// the attempt reports back), then sends; what comes back moves the row on. The sends are started,
// never awaited by the run: a slow or dead receiver holds up no step, answer or alarm. The alarm
// starts what is due and is set for the next row due (src/durable/run/next-alarm.ts).
//
//   inbox    every pending row of the run in one call to the subject's inbox object, which applies
//            those newer than what it holds; the rows are deleted once it answered. Never given up.
//   schedule the same, to the schedule whose fire made the run (its index of runs, and its overlap).
//   parent   the same, to the run whose agent tool call made this child run (its record of the
//            child, and the call's result once the child ended: docs/children.md).
//   agent    the same, to the index of the runs of the stored agent the run was made from.
//   experiment the same, to the experiment whose case the run is (docs/evals.md): its case ends.
//   webhook  one row per receiver; a 2xx delivers it, anything else is retried on the schedule of
//            ./outbox-schedule.ts, and after the last attempt it is failed (the run's view shows it).
//   otel     the run's spans, in batches to the OTLP endpoint (./span-delivery.ts).
import { shownUrlsIn } from "../../api/redaction/shown-url";
import type { InboxChange } from "../../api/rpc/inbox-rpc";
import type { InboxEvent } from "../../api/types";
import type { ChildReport } from "../../api/child-runs";
import { inboxRetryDelay, leaseUntil, mayAttemptWebhook, webhookRetryDelay } from "./outbox-schedule";
import { deleteRows, dueRows, giveUp, leaseRow, nextDueAt, pendingRows, recordAttempt, recordInboxFailure, type BatchChannel, type OutboxRow } from "./outbox-store";

/** The most rows one call hands the subject's inbox (or the run's schedule); the rest go in the next call, right after. */
export const INBOX_BATCH_ROWS = 50;
/** The most webhook sends one delivery round (an alarm) starts; the rest stay due for the next. */
export const WEBHOOK_SENDS_PER_CALL = 10;
import type { WebhookAnswer, WebhookSend } from "./channels/webhook-sender";
import { startSpanExport } from "./channels/span-delivery";
import type { SpanSend } from "./channels/span-sender";
import type { SeedRun } from "../telemetry/span-seed";

export type OutboxDeps = {
  sql: SqlStorage;
  now: () => number;
  /** In [0, 1): the jitter of retries. */
  random: () => number;
  /** Hands changes to the subject's inbox; throws when they were not taken. */
  sendInbox: (subject: string, changes: InboxChange[]) => Promise<void>;
  /** Hands changes to the run's schedule; throws when they were not taken. */
  sendSchedule: (scheduleId: string, changes: InboxChange[]) => Promise<void>;
  /** Hands changes to the index of the runs of the run's stored agent; throws when they were not taken. */
  sendAgentRuns: (agentName: string, changes: InboxChange[]) => Promise<void>;
  /** Hands a child run's reports to its parent run; throws when they were not taken. */
  sendParent: (parentId: string, reports: ChildReport[]) => Promise<void>;
  /** Hands a case run's changes to its experiment; throws when they were not taken. */
  sendExperiment: (experimentId: string, changes: InboxChange[]) => Promise<void>;
  sendWebhook: WebhookSend;
  /** Exports spans to the OTLP endpoint. */
  sendSpans: SpanSend;
  /** What the spans of step seeds take from the run (span-delivery.ts). */
  seedRun?: () => SeedRun | undefined;
  /** After an attempt moved its rows on: the object sets its next alarm. */
  onSettled: () => void;
};

function describe(error: unknown): string {
  return shownUrlsIn(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/** The row's storage may be gone when an attempt reports back (the run was deleted meanwhile): nothing is left to record then. */
function quietly(write: () => void): void {
  try {
    write();
  } catch {
    // The outbox table is gone.
  }
}

export class Outbox {
  private readonly batchesInFlight = new Set<BatchChannel>();
  private readonly webhooksInFlight = new Set<number>();
  private spansInFlight = false;
  private readonly work = new Set<Promise<void>>();

  constructor(private readonly deps: OutboxDeps) {}

  /**
   * Starts the deliveries that are due and not already in flight here, within bounds: one inbox
   * call of at most INBOX_BATCH_ROWS rows, and at most WEBHOOK_SENDS_PER_CALL webhook sends (the
   * rest are due still, so the next alarm, set for now, starts them). Returns at once: true when
   * it started any (which may have written its leases), false when nothing was due. `known`: when
   * the earliest pending row is due, as the caller read it in this same synchronous turn (nextDueAt).
   */
  deliverDue(known?: { dueAt: number | undefined }): boolean {
    const now = this.deps.now();
    // Nothing pending is due (none, or all in flight): one read, not one per channel.
    const due = known === undefined ? nextDueAt(this.deps.sql) : known.dueAt;
    if (due === undefined || due > now) return false;
    this.startBatch("inbox", now);
    this.startBatch("schedule", now);
    this.startSpans();
    this.startBatch("parent", now);
    this.startBatch("agent", now);
    this.startBatch("experiment", now);
    let started = 0;
    for (const row of dueRows(this.deps.sql, "webhook", now, WEBHOOK_SENDS_PER_CALL + this.webhooksInFlight.size)) {
      if (started >= WEBHOOK_SENDS_PER_CALL) break;
      if (this.webhooksInFlight.has(row.id)) continue;
      this.startWebhook(row, now);
      started++;
    }
    return true;
  }

  /** Resolves once every attempt started so far (and any it started in turn) has reported back. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private track(attempt: Promise<void>): void {
    const tracked = attempt.catch(() => undefined).finally(() => this.work.delete(tracked));
    this.work.add(tracked);
  }

  /** The object a batch channel's row goes to: the subject's inbox, the run's schedule, its parent or its agent's index. */
  private static recipientOf(row: OutboxRow): string {
    if (row.channel === "parent") return row.parentId!;
    if (row.channel === "agent") return row.agentName!;
    if (row.channel === "experiment") return row.experimentId!;
    return row.channel === "schedule" ? row.scheduleId! : row.subject!;
  }

  private startBatch(channel: BatchChannel, now: number): void {
    if (this.batchesInFlight.has(channel)) return;
    const rows = pendingRows(this.deps.sql, channel, INBOX_BATCH_ROWS);
    if (rows.length === 0 || !rows.some((row) => row.nextAt <= now)) return;
    // A run has one subject and one schedule; a row of another (none is ever written) waits for a batch of its own.
    const recipient = Outbox.recipientOf(rows[0]!);
    const batch = rows.filter((row) => Outbox.recipientOf(row) === recipient);
    const ids = batch.map((row) => row.id);
    const attempts = Math.max(...batch.map((row) => row.attempts)) + 1;
    const lease = leaseUntil("inbox", now);
    for (const id of ids) leaseRow(this.deps.sql, id, lease);
    const send = (to: string): Promise<void> => {
      if (channel === "parent") return this.deps.sendParent(to, batch.map((row) => JSON.parse(row.body) as ChildReport));
      const changes: InboxChange[] = batch.map((row) => ({ version: row.version, event: JSON.parse(row.body) as InboxEvent }));
      if (channel === "agent") return this.deps.sendAgentRuns(to, changes);
      if (channel === "experiment") return this.deps.sendExperiment(to, changes);
      return channel === "inbox" ? this.deps.sendInbox(to, changes) : this.deps.sendSchedule(to, changes);
    };
    this.batchesInFlight.add(channel);
    this.track(
      (async () => {
        try {
          await send(recipient);
          quietly(() => deleteRows(this.deps.sql, ids));
        } catch (error) {
          const nextAt = this.deps.now() + inboxRetryDelay(attempts, this.deps.random());
          quietly(() => recordInboxFailure(this.deps.sql, ids, describe(error), nextAt));
        } finally {
          this.batchesInFlight.delete(channel);
        }
        this.deps.onSettled();
        // Changes written while this batch was in flight go now.
        quietly(() => this.startBatch(channel, this.deps.now()));
      })(),
    );
  }

  /** One span export at a time; spans committed while it was in flight go right after it. */
  private startSpans(): void {
    if (this.spansInFlight) return;
    const attempt = startSpanExport(this.deps, quietly);
    if (attempt === undefined) return;
    this.spansInFlight = true;
    this.track(
      (async () => {
        try {
          await attempt;
        } finally {
          this.spansInFlight = false;
        }
        this.deps.onSettled();
        quietly(() => this.startSpans());
      })(),
    );
  }

  private startWebhook(row: OutboxRow, now: number): void {
    if (!mayAttemptWebhook(row.attempts, row.createdAt, now)) {
      // The delivery's time is over (or its last attempt died with the object while it was in flight).
      giveUp(this.deps.sql, row.id);
      return;
    }
    const attempts = row.attempts + 1;
    leaseRow(this.deps.sql, row.id, leaseUntil("webhook", now));
    this.webhooksInFlight.add(row.id);
    this.track(
      (async () => {
        let answer: WebhookAnswer;
        try {
          answer = await this.deps.sendWebhook(row);
        } catch (error) {
          answer = { status: 0, error: describe(error) };
        } finally {
          this.webhooksInFlight.delete(row.id);
        }
        const delivered = answer.status >= 200 && answer.status < 300;
        const nextAt = this.deps.now() + webhookRetryDelay(attempts, this.deps.random());
        quietly(() => {
          if (delivered) recordAttempt(this.deps.sql, row.id, { state: "delivered", status: answer.status, error: null });
          else if (mayAttemptWebhook(attempts, row.createdAt, nextAt)) recordAttempt(this.deps.sql, row.id, { state: "pending", status: answer.status, error: answer.error ?? null, nextAt });
          else recordAttempt(this.deps.sql, row.id, { state: "failed", status: answer.status, error: answer.error ?? null });
        });
        this.deps.onSettled();
      })(),
    );
  }
}
