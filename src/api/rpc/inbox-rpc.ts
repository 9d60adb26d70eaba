// The calls made on a subject's inbox object (Durable Object RPC): by run objects, which report
// their status changes, and by the HTTP edge, which lists runs and opens the inbox stream.
import type { PushEventType, PushSubscriptionView } from "../schemas/subject/push-schemas";
import type { Reservation, ReserveAnswer, Usage } from "../rules/spend";
import type { InboxEvent, Outcome, RunStatus, RunSummary, TicketHolder, TicketRecord } from "../types";

/** One status change of one run, as its outbox delivers it. A change is applied only if its version is newer than the one the inbox holds. */
export type InboxChange = { version: number; event: InboxEvent };

/** Where a page starts: after this run in newest-first order (creation time, then id). */
export type ListPosition = { createdAt: string; id: string };

/**
 * `agent`: only the runs made from the stored agent of this name (any version); `tag`: only those
 * tagged so; `from` and `to`: only those created at or after `from` and before `to` (ISO times).
 */
export type ListQuery = { status?: RunStatus; agent?: string; tag?: string; from?: string; to?: string; limit: number; after?: ListPosition };

/** A page, where the next one starts when there is one, and the inbox's newest event seq when it was read. */
export type ListAnswer = { runs: RunSummary[]; next?: ListPosition; lastSeq?: number };

/** A push subscription as the inbox keeps it: the browser's endpoint and keys, what it asked for, and where its pushes open a run. */
export type PushSubscriptionRecord = { endpoint: string; p256dh: string; auth: string; events: PushEventType[]; base: string };

export interface InboxRpc {
  /** Applies the changes (in order) that are newer than what the inbox holds; answers how many were. 409 when `subject` is not this inbox's. */
  apply(subject: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>>;
  list(query: ListQuery): Promise<ListAnswer>;
  /** Holds a run's budget against the subject's daily limit (spend-store.ts); the same reservation again is answered as before. */
  reserve(subject: string, reservation: Reservation): Promise<ReserveAnswer>;
  /** Gives back a hold whose run was never created (no change of the run confirmed it). */
  dropHold(runId: string, key: number): Promise<null>;
  /** Revokes the subject's user token `tokenId` until `until` (ms since the epoch); its open streams here close. Answers the runs it watches (their streams are the caller's to close). */
  revokeToken(subject: string | undefined, tokenId: string, until: number): Promise<string[]>;
  /** True when the user token `tokenId` was revoked. */
  isRevoked(tokenId: string): Promise<boolean>;
  /** The subject's spend today against `limitUsd`. */
  usage(subject: string, limitUsd: number): Promise<Usage>;
  /** Keeps a ticket for the inbox stream. */
  storeTicket(ticket: TicketRecord): Promise<null>;
  /** Redeems a ticket once: who asked for it, or null when it is unknown, used or expired. */
  redeemTicket(hash: string): Promise<TicketHolder | null>;
  /**
   * Notes that user token `tokenId` watches run `runId` until `until`, so that a revocation closes
   * that run's watchers too; true when the token is revoked already (its watcher must close now).
   */
  noteWatch(tokenId: string, runId: string, until: number): Promise<boolean>;
  /** Adds a push subscription (or renews the one at its endpoint); 409 past the subject's limit or for another subject's inbox. */
  subscribePush(subject: string, record: PushSubscriptionRecord): Promise<Outcome<{ subscription: PushSubscriptionView; created: boolean }>>;
  /** Removes the push subscription at `endpoint`; false when there was none. */
  unsubscribePush(endpoint: string): Promise<boolean>;
  /** The subject's push subscriptions, oldest first. */
  pushSubscriptions(): Promise<PushSubscriptionView[]>;
  /** GET /v1/inbox/events, forwarded after auth (WebSocket upgrade or SSE) with CALLER_HEADER set. */
  fetch(request: Request): Promise<Response>;
}
