// One subject's inbox per object: the index of that subject's runs and the stream of their changes
// (run-started, run-waiting, run-answered, run-resumed, run-ended, run-deleted), so that a phone
// needs one socket, not one per run. Runs report their changes through their outboxes; this object
// only stores, lists and sends. It scales with the number of subjects: no object holds every run.
import { DurableObject } from "cloudflare:workers";
import type { InboxChange, InboxRpc, ListAnswer, ListQuery } from "../../api/rpc/inbox-rpc";
import { CALLER_HEADER } from "../../api/rpc/run-rpc";
import type { CallerKind, Outcome, TicketHolder, TicketRecord } from "../../api/types";
import { isoNow } from "../storage/clock";
import { openEventStream } from "../events/readers/event-stream";
import { limitsOf } from "../../config/settings";
import { Fanout } from "../events/readers/fanout";
import type { Reservation, ReserveAnswer, Usage } from "../../api/rules/spend";
import { applyChanges, claimSubject, hasInbox, inboxSubject, listRuns, migrateInbox, runVersion } from "./inbox-store";
import { dropHold, reserve, usageOf } from "./spend-store";
import { isRevoked, noteWatch, revoke, watchedRuns } from "./revocation-store";
import { acceptedKeys } from "../events/log/accepted-keys";
import { nextTokenCheck, watcherTokenOf } from "../events/readers/watcher-tokens";
import { oldestSeq, trimEvents } from "./inbox-retention";
import { fail, ok } from "../run/outcome";
import { redeemTicket, storeTicket } from "../events/readers/ticket-store";
import type { PushSubscriptionView } from "../../api/schemas/subject/push-schemas";
import { PUSH_SUBSCRIPTIONS_LIMIT } from "../../api/schemas/subject/push-schemas";
import { migratePush, queuePushes } from "../push/push-queue";
import { PushDelivery } from "../push/push-delivery";
import { pushSender } from "../push/push-sender";
import { nextPushAt, deletePushesTo } from "../push/push-outbox-store";
import { countSubscriptions, deleteSubscription, putSubscription, subscriptionOf, subscriptionViews, type PushSubscriptionRecord } from "../push/subscription-store";
import { nextInboxAlarm } from "./inbox-alarm";

function send(socket: WebSocket, frame: object): void {
  try {
    socket.send(JSON.stringify(frame));
  } catch {
    // Closing.
  }
}

export class InboxObject extends DurableObject<Env> implements InboxRpc {
  private readonly fanout: Fanout;
  /** The subject's push outbox, delivered as changes are applied and by the alarm (../push/). */
  private readonly push: PushDelivery;
  /** The clock the subject's days are read by (ms since the epoch; tests move it to another day). */
  now: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Existing inboxes get any new tables; an object that was only read stays empty.
    if (hasInbox(ctx.storage.sql)) migrateInbox(ctx.storage.sql);
    this.fanout = new Fanout(ctx);
    this.push = new PushDelivery({
      sql: ctx.storage.sql,
      now: () => Date.now(),
      random: Math.random,
      send: pushSender(env, (input, init) => fetch(input, init), () => Date.now()),
      runVersion: (runId) => runVersion(ctx.storage.sql, runId),
      onSettled: () => void this.scheduleAlarm().catch(() => undefined),
    });
  }

  async apply(subject: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>> {
    const { sql } = this.ctx.storage;
    const own = inboxSubject(sql);
    if (own !== undefined && own !== subject) return fail(409, "These changes belong to another subject's inbox.");
    const { logged, pushes } = this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      const logged = applyChanges(sql, subject, changes, isoNow(), this.trimBefore());
      // A run that starts waiting rings its subject's subscriptions: the pushes are written with the change.
      return { logged, pushes: queuePushes(sql, logged, Date.now()) };
    });
    this.fanout.sendLogged(logged);
    // Pushes written now go at once. Any others still to send (this object may have died between
    // writing them and setting its alarm; the run then delivers its change again) get their alarm.
    if (pushes > 0 || nextPushAt(sql) !== undefined) {
      this.push.deliverDue();
      await this.scheduleAlarm();
    }
    return ok({ applied: logged.length });
  }

  /** Events logged before this (ISO time) are trimmed: INBOX_EVENTS_DAYS ago. */
  private trimBefore(): string {
    return new Date(Date.now() - limitsOf(this.env).inboxEventsDays * 24 * 3600 * 1000).toISOString();
  }

  async list(query: ListQuery): Promise<ListAnswer> {
    return listRuns(this.ctx.storage.sql, query);
  }

  async reserve(subject: string, reservation: Reservation): Promise<ReserveAnswer> {
    const { sql } = this.ctx.storage;
    return this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      claimSubject(sql, subject);
      return reserve(sql, subject, reservation, this.now());
    });
  }

  async dropHold(runId: string, key: number): Promise<null> {
    if (hasInbox(this.ctx.storage.sql)) dropHold(this.ctx.storage.sql, runId, key);
    return null;
  }

  async revokeToken(subject: string | undefined, tokenId: string, until: number): Promise<string[]> {
    const { sql } = this.ctx.storage;
    this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      if (subject !== undefined) claimSubject(sql, subject);
      revoke(sql, tokenId, until, Date.now());
    });
    this.fanout.closeToken(tokenId);
    return watchedRuns(sql, tokenId);
  }

  async noteWatch(tokenId: string, runId: string, until: number): Promise<boolean> {
    const { sql } = this.ctx.storage;
    return this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      noteWatch(sql, tokenId, runId, until, Date.now());
      return isRevoked(sql, tokenId, Date.now());
    });
  }

  /** Watchers whose user token expired, or whose key is no longer accepted, close; due pushes go; the next alarm is set. */
  override async alarm(): Promise<void> {
    const keys = await acceptedKeys(this.env);
    this.fanout.closeEnded(Date.now(), keys.accepted);
    this.push.deliverDue();
    await this.scheduleAlarm();
  }

  /** The one alarm, for whichever comes first (inbox-alarm.ts): the next look at watchers' tokens, the next push due; or none. */
  private async scheduleAlarm(): Promise<void> {
    const keys = await acceptedKeys(this.env);
    const now = Date.now();
    const at = nextInboxAlarm({
      tokenCheckAt: nextTokenCheck(this.fanout.tokens(), now, keys.current),
      pushDueAt: nextPushAt(this.ctx.storage.sql),
      now,
      delayMs: Number(this.env.ALARM_DELAY_MS) || 0,
    });
    if (at === undefined) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /** Adds (or renews, at the same endpoint) a push subscription of `subject`; 409 past PUSH_SUBSCRIPTIONS_LIMIT. */
  async subscribePush(subject: string, record: PushSubscriptionRecord): Promise<Outcome<{ subscription: PushSubscriptionView; created: boolean }>> {
    const { sql } = this.ctx.storage;
    const own = inboxSubject(sql);
    if (own !== undefined && own !== subject) return fail(409, "This subscription belongs to another subject's inbox.");
    return this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      migratePush(sql);
      claimSubject(sql, subject);
      const created = subscriptionOf(sql, record.endpoint) === undefined;
      if (created && countSubscriptions(sql) >= PUSH_SUBSCRIPTIONS_LIMIT) {
        return fail(409, `At most ${PUSH_SUBSCRIPTIONS_LIMIT} push subscriptions a subject: remove one first (DELETE /v1/push/subscriptions?endpoint=…).`);
      }
      putSubscription(sql, record, Date.now());
      return ok({ subscription: subscriptionViews(sql).find((view) => view.endpoint === record.endpoint)!, created });
    });
  }

  /** Removes the subscription at `endpoint` and its pushes still to send; false when there was none. */
  async unsubscribePush(endpoint: string): Promise<boolean> {
    const { sql } = this.ctx.storage;
    return this.ctx.storage.transactionSync(() => {
      deletePushesTo(sql, endpoint);
      return deleteSubscription(sql, endpoint);
    });
  }

  async pushSubscriptions(): Promise<PushSubscriptionView[]> {
    return subscriptionViews(this.ctx.storage.sql);
  }

  /** For tests: resolves once every push started so far has reported back. */
  pushIdle(): Promise<void> {
    return this.push.idle();
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    return isRevoked(this.ctx.storage.sql, tokenId, Date.now());
  }

  async usage(subject: string, limitUsd: number): Promise<Usage> {
    // An inbox that never held anything is not made by a read: usageOf reads no missing table.
    return usageOf(this.ctx.storage.sql, subject, limitUsd, this.now());
  }

  async storeTicket(ticket: TicketRecord): Promise<null> {
    const { sql } = this.ctx.storage;
    migrateInbox(sql);
    storeTicket(sql, ticket, Date.now());
    return null;
  }

  async redeemTicket(hash: string): Promise<TicketHolder | null> {
    const { sql } = this.ctx.storage;
    if (!hasInbox(sql)) return null;
    return redeemTicket(sql, hash, Date.now());
  }

  override async fetch(request: Request): Promise<Response> {
    // Reached only after the edge checked who is asking: an inbox with no run yet streams from seq 1 once its first change comes.
    const { sql } = this.ctx.storage;
    this.ctx.storage.transactionSync(() => {
      migrateInbox(sql);
      trimEvents(sql, this.trimBefore());
    });
    const header = request.headers.get(CALLER_HEADER);
    const caller: CallerKind = header === "user" ? "user" : "deployment";
    const token = watcherTokenOf(request);
    const response = openEventStream(this.ctx, this.fanout, request, {
      caller,
      ...(token === undefined ? {} : { token }),
      watchersLimit: limitsOf(this.env).watchers,
      now: () => Date.now(),
      // Trimmed events are gone: a cursor before the oldest kept one is refused (410), not quietly skipped.
      oldestKept: () => oldestSeq(sql),
    });
    // A watcher of a user token ends with it: the alarm looks at the tokens when one may have ended.
    if (token !== undefined) await this.scheduleAlarm();
    return response;
  }

  /** The inbox stream carries no actions: a ping is answered, anything else is refused (answers go to the run). */
  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message === "string") {
      try {
        if ((JSON.parse(message) as { type?: unknown }).type === "ping") return send(socket, { type: "pong" });
      } catch {
        // Not JSON: refused below.
      }
    }
    send(socket, {
      type: "error",
      error: { code: "invalid-request", message: 'The inbox stream takes only {"type":"ping"}; answer a run with POST /v1/runs/{id}/answer.' },
    });
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    try {
      socket.close(code, reason);
    } catch {
      // Already closed.
    }
  }
}
