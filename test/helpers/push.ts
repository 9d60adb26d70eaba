// Helpers for the Web Push tests: subscriptions through the Worker (SELF), the subject's inbox
// object's push outbox read and driven by hand (its alarm fired, the sends it started awaited).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { PushSubscriptionView } from "../../src/api/schemas/subject/push-schemas";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import { pendingPushes, type PushRow } from "../../src/durable/push/push-outbox-store";
import type { NewSubscription } from "../push-service/client";
import { api } from "./service-client";

export function inboxObject(subject: string): DurableObjectStub<InboxObject> {
  return inboxStub(env, subject) as unknown as DurableObjectStub<InboxObject>;
}

/** POST /v1/push/subscriptions for `subscription` with `token` (the deployment token adds `?subject=`). */
export async function subscribe(token: string, subscription: NewSubscription, options: { events?: string[]; subject?: string } = {}): Promise<Response> {
  const query = options.subject === undefined ? "" : `?subject=${encodeURIComponent(options.subject)}`;
  const body = { endpoint: subscription.endpoint, keys: subscription.keys, ...(options.events === undefined ? {} : { events: options.events }) };
  return api(`/v1/push/subscriptions${query}`, token, { method: "POST", body: JSON.stringify(body) });
}

export async function listSubscriptions(token: string, subject?: string): Promise<PushSubscriptionView[]> {
  const response = await api(`/v1/push/subscriptions${subject === undefined ? "" : `?subject=${encodeURIComponent(subject)}`}`, token);
  return ((await response.json()) as { subscriptions: PushSubscriptionView[] }).subscriptions;
}

/** Waits until every push the inbox started has reported back. */
export async function pushIdle(subject: string): Promise<void> {
  await runInDurableObject(inboxObject(subject), (instance) => instance.pushIdle());
}

/** The pushes the subject's inbox still has to send. */
export async function pendingPushRows(subject: string): Promise<PushRow[]> {
  return runInDurableObject(inboxObject(subject), (_instance, state) => pendingPushes(state.storage.sql));
}

/** Time moves on: every pending push is due; the inbox's alarm fires and its sends report back. */
export async function retryPushesNow(subject: string): Promise<void> {
  await runInDurableObject(inboxObject(subject), (_instance, state) => {
    if (state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'push_outbox'").toArray().length > 0) {
      state.storage.sql.exec("UPDATE push_outbox SET next_at = ?", Date.now() - 1);
    }
  });
  await runDurableObjectAlarm(inboxObject(subject));
  await pushIdle(subject);
}
