// The workerd side of the local push service (./server.ts): new subscriptions, and the pushes that
// reached each, over its control routes.
import { inject } from "vitest";
import type { NewSubscription, ReceivedPush } from "./types";

export type { NewSubscription, ReceivedPush };

const base = () => inject("pushServiceUrl");

/** A browser's subscription on the local push service; its n-th push is answered `answers[n-1]` (then 201). */
export async function newSubscription(options: { answers?: number[]; retryAfter?: number } = {}): Promise<NewSubscription> {
  const response = await fetch(`${base()}/__control/subscriptions`, { method: "POST", body: JSON.stringify(options) });
  return (await response.json()) as NewSubscription;
}

/** The pushes that reached the subscription, in arrival order. */
export async function pushesTo(id: string): Promise<ReceivedPush[]> {
  return ((await (await fetch(`${base()}/__control/subscriptions/${id}`)).json()) as { pushes: ReceivedPush[] }).pushes;
}

/** The pushes, once at least `count` arrived (the service's long-poll; fails after 20 s). */
export async function waitForPushes(id: string, count: number): Promise<ReceivedPush[]> {
  const response = await fetch(`${base()}/__control/subscriptions/${id}/wait?count=${count}`);
  const body = (await response.json()) as { pushes?: ReceivedPush[]; error?: string };
  if (response.status !== 200) throw new Error(body.error ?? `the push service answered ${response.status}`);
  return body.pushes!;
}
