// Pushes are queued where the inbox applies a run's change, in the same transaction (the inbox's
// outbox): a run that starts waiting (and, for subscriptions that ask, one that finished or failed)
// writes one row per subscription. A change that is applied again (a redelivery) is not logged
// again, so it queues nothing twice.
import type { PushEventType } from "../../api/schemas/subject/push-schemas";
import type { StoredInboxEvent } from "../../api/types";
import type { LoggedEvent } from "../events/log/event-log";
import { pushPayload, runPageUrl } from "../../push/push-payload";
import { insertPush, PUSH_OUTBOX_TABLE } from "./push-outbox-store";
import { SUBSCRIPTION_TABLE, subscriptions } from "./subscription-store";

export function migratePush(sql: SqlStorage): void {
  sql.exec(SUBSCRIPTION_TABLE);
  sql.exec(PUSH_OUTBOX_TABLE);
}

/** The push an inbox event is, if it is one. */
export function pushKindOf(event: Pick<StoredInboxEvent, "type" | "run">): PushEventType | undefined {
  if (event.type === "run-waiting") return "run.waiting";
  if (event.type !== "run-ended") return undefined;
  if (event.run.status === "finished") return "run.finished";
  return event.run.status === "failed" ? "run.failed" : undefined;
}

/** Inside the transaction that logged `logged`: one push row per subscription that asked for each event. Answers how many. */
export function queuePushes(sql: SqlStorage, logged: readonly LoggedEvent[], now: number): number {
  const subscribers = subscriptions(sql);
  if (subscribers.length === 0) return 0;
  let queued = 0;
  for (const { text } of logged) {
    const event = JSON.parse(text) as StoredInboxEvent;
    const kind = pushKindOf(event);
    if (kind === undefined) continue;
    for (const subscription of subscribers.filter((candidate) => candidate.events.includes(kind))) {
      const payload = pushPayload(kind, event.run, runPageUrl(subscription.base, event.run.id));
      insertPush(sql, { endpoint: subscription.endpoint, runId: event.run.id, version: event.run.version, kind, payload: JSON.stringify(payload) }, now);
      queued++;
    }
  }
  return queued;
}
