// A subject's push subscriptions in its inbox's SQLite: one row per endpoint (a browser on a
// device), with the keys its pushes are encrypted for, the events it asked for, where its pushes
// open a run (`base`: PUBLIC_URL or the origin it subscribed at), and the last push's answer.
import type { PushSubscriptionRecord } from "../../api/rpc/inbox-rpc";
import type { PushEventType, PushSubscriptionView } from "../../api/schemas/subject/push-schemas";
import { tableExists } from "../storage/sqlite-tables";

export const SUBSCRIPTION_TABLE = `CREATE TABLE IF NOT EXISTS push_subscription (
  endpoint TEXT PRIMARY KEY,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  events TEXT NOT NULL,
  base TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  last_at INTEGER
)`;

export type { PushSubscriptionRecord };

type Raw = Record<string, SqlStorageValue>;

function recordOf(raw: Raw): PushSubscriptionRecord & { createdAt: number } {
  return {
    endpoint: String(raw.endpoint),
    p256dh: String(raw.p256dh),
    auth: String(raw.auth),
    events: JSON.parse(String(raw.events)) as PushEventType[],
    base: String(raw.base),
    createdAt: Number(raw.created_at),
  };
}

export function hasSubscriptions(sql: SqlStorage): boolean {
  return tableExists(sql, "push_subscription");
}

/** Every subscription, oldest first. */
export function subscriptions(sql: SqlStorage): PushSubscriptionRecord[] {
  if (!hasSubscriptions(sql)) return [];
  return sql.exec<Raw>("SELECT * FROM push_subscription ORDER BY created_at, endpoint").toArray().map(recordOf);
}

export function subscriptionOf(sql: SqlStorage, endpoint: string): PushSubscriptionRecord | undefined {
  if (!hasSubscriptions(sql)) return undefined;
  const raw = sql.exec<Raw>("SELECT * FROM push_subscription WHERE endpoint = ?", endpoint).toArray()[0];
  return raw === undefined ? undefined : recordOf(raw);
}

export function countSubscriptions(sql: SqlStorage): number {
  if (!hasSubscriptions(sql)) return 0;
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM push_subscription").one().n);
}

/** Adds the subscription, or replaces the keys, events and base of the one at its endpoint (keeping when it was made). */
export function putSubscription(sql: SqlStorage, record: PushSubscriptionRecord, now: number): void {
  sql.exec(
    `INSERT INTO push_subscription (endpoint, p256dh, auth, events, base, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, events = excluded.events, base = excluded.base`,
    record.endpoint, record.p256dh, record.auth, JSON.stringify(record.events), record.base, now,
  );
}

/** True when there was one to remove. */
export function deleteSubscription(sql: SqlStorage, endpoint: string): boolean {
  if (!hasSubscriptions(sql)) return false;
  return sql.exec("DELETE FROM push_subscription WHERE endpoint = ?", endpoint).rowsWritten > 0;
}

/** What the push service answered the last push to this endpoint (status 0: no answer). */
export function noteAnswer(sql: SqlStorage, endpoint: string, status: number, error: string | null, at: number): void {
  sql.exec("UPDATE push_subscription SET last_status = ?, last_error = ?, last_at = ? WHERE endpoint = ?", status, error, at, endpoint);
}

/** The subscriptions as the API shows them (no keys). */
export function subscriptionViews(sql: SqlStorage): PushSubscriptionView[] {
  if (!hasSubscriptions(sql)) return [];
  return sql
    .exec<Raw>("SELECT * FROM push_subscription ORDER BY created_at, endpoint")
    .toArray()
    .map((raw) => {
      const view: PushSubscriptionView = { endpoint: String(raw.endpoint), events: JSON.parse(String(raw.events)) as PushEventType[], createdAt: new Date(Number(raw.created_at)).toISOString() };
      if (raw.last_status !== null) view.lastStatus = Number(raw.last_status);
      if (raw.last_error !== null) view.lastError = String(raw.last_error);
      if (raw.last_at !== null) view.lastAttemptAt = new Date(Number(raw.last_at)).toISOString();
      return view;
    });
}
