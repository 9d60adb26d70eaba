// Delivering the inbox's push outbox (./push-outbox-store.ts), at least once. Every attempt first
// commits its lease (the attempt is counted and the row is due again should the object die before
// the attempt reports back), then sends; the answer moves the row on (./push-schedule.ts):
// delivered, the subscription gone (404, 410: it is removed with its pushes), refused for good, or
// tried again with backoff until its hour is over. A waiting run's push that is still due when the
// run has moved on (answered, ended, deleted) is dropped unsent: the question is no longer asked.
// Sends are started, never awaited by the inbox: a slow push service holds up no change.
import { deletePush, deletePushesTo, duePushes, leasePush, retryPush, type PushRow } from "./push-outbox-store";
import { mayAttemptPush, outcomeOf, PUSH_SENDS_PER_ROUND, pushLeaseUntil, pushRetryDelay } from "./push-schedule";
import type { PushAnswer, PushSend } from "./push-sender";
import { deleteSubscription, noteAnswer, subscriptionOf } from "./subscription-store";

export type PushDeliveryDeps = {
  sql: SqlStorage;
  now: () => number;
  /** In [0, 1): the jitter of retries. */
  random: () => number;
  send: PushSend;
  /** The version of the run the inbox holds now, if it holds the run. */
  runVersion: (runId: string) => number | undefined;
  /** After an attempt moved its row on: the object sets its next alarm. */
  onSettled: () => void;
};

/** The object's storage may be gone when an attempt reports back: nothing is left to record then. */
function quietly(write: () => void): void {
  try {
    write();
  } catch {
    // The tables are gone.
  }
}

export class PushDelivery {
  private readonly inFlight = new Set<number>();
  private readonly work = new Set<Promise<void>>();

  constructor(private readonly deps: PushDeliveryDeps) {}

  /** Starts the pushes that are due and not in flight here, at most PUSH_SENDS_PER_ROUND (the rest stay due); answers how many. */
  deliverDue(): number {
    const now = this.deps.now();
    let started = 0;
    for (const row of duePushes(this.deps.sql, now, PUSH_SENDS_PER_ROUND + this.inFlight.size)) {
      if (started >= PUSH_SENDS_PER_ROUND) break;
      if (this.inFlight.has(row.id)) continue;
      if (this.start(row, now)) started++;
    }
    return started;
  }

  /** Resolves once every attempt started so far has reported back. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  /** Whether the row is still worth an attempt now; one that is not is deleted. */
  private worthSending(row: PushRow, now: number): boolean {
    if (!mayAttemptPush(row.attempts, row.createdAt, now)) return false;
    if (row.kind !== "run.waiting") return true;
    // The run answered, ended or deleted since it asked: nothing waits for the person any more.
    return (this.deps.runVersion(row.runId) ?? row.version) <= row.version;
  }

  private start(row: PushRow, now: number): boolean {
    const { sql } = this.deps;
    const subscription = subscriptionOf(sql, row.endpoint);
    if (subscription === undefined || !this.worthSending(row, now)) {
      deletePush(sql, row.id);
      return false;
    }
    const attempts = row.attempts + 1;
    leasePush(sql, row.id, pushLeaseUntil(now));
    this.inFlight.add(row.id);
    const attempt = (async () => {
      let answer: PushAnswer;
      try {
        answer = await this.deps.send(subscription, row.payload, row.runId);
      } catch (error) {
        answer = { status: 0, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      } finally {
        this.inFlight.delete(row.id);
      }
      quietly(() => this.record(row, attempts, answer));
      this.deps.onSettled();
    })();
    const tracked = attempt.catch(() => undefined).finally(() => this.work.delete(tracked));
    this.work.add(tracked);
    return true;
  }

  private record(row: PushRow, attempts: number, answer: PushAnswer): void {
    const { sql } = this.deps;
    const at = this.deps.now();
    const outcome = outcomeOf(answer.status);
    if (outcome === "gone") {
      // The browser unsubscribed, or the push service ended the subscription: no push goes there again.
      deleteSubscription(sql, row.endpoint);
      deletePushesTo(sql, row.endpoint);
      return;
    }
    noteAnswer(sql, row.endpoint, answer.status, answer.error ?? null, at);
    const nextAt = at + pushRetryDelay(attempts, this.deps.random(), answer.retryAfterMs);
    if (outcome === "retry" && mayAttemptPush(attempts, row.createdAt, nextAt)) retryPush(sql, row.id, answer.error ?? `The push service answered ${answer.status}.`, nextAt);
    else deletePush(sql, row.id);
  }
}
