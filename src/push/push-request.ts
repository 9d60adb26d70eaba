// One Web Push request (RFC 8030), built without sending it: the payload encrypted for the
// subscription (RFC 8291, aes128gcm, by @block65/webcrypto-web-push's encryptNotification) and
// the VAPID authorization (RFC 8292, ./vapid.ts). Web Crypto only.
import { encryptNotification } from "@block65/webcrypto-web-push";
import { vapidAuthorization, type VapidKeys } from "./vapid";

/** A browser's subscription: where to push, and the keys to encrypt for. */
export type PushTarget = { endpoint: string; p256dh: string; auth: string };

export type PushRequest = { url: string; headers: Record<string, string>; body: Uint8Array };

export type PushOptions = {
  /** Seconds the push service keeps the message for a device that is offline. */
  ttlSeconds: number;
  urgency: "very-low" | "low" | "normal" | "high";
  /** A later message with the same topic replaces one the push service still holds (≤ 32 base64url characters). */
  topic?: string;
};

export async function buildPushRequest(target: PushTarget, plaintext: string, keys: VapidKeys, options: PushOptions, nowMs: number): Promise<PushRequest> {
  const body = await encryptNotification({ endpoint: target.endpoint, expirationTime: null, keys: { p256dh: target.p256dh, auth: target.auth } }, new TextEncoder().encode(plaintext));
  const headers: Record<string, string> = {
    Authorization: await vapidAuthorization(target.endpoint, keys, nowMs),
    "Content-Encoding": "aes128gcm",
    "Content-Type": "application/octet-stream",
    TTL: String(options.ttlSeconds),
    Urgency: options.urgency,
  };
  if (options.topic !== undefined) headers.Topic = options.topic;
  return { url: target.endpoint, headers, body };
}
