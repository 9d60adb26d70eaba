// Standard Webhooks signatures (https://www.standardwebhooks.com) of HTTP tool requests, so a tool
// server can refuse callers that are not this deployment with any of the spec's libraries. Pure
// and Web Crypto only: the same code runs in workerd and in the tests.
import type { SigningKeyBytes } from "./signing-keys";

export type SignatureHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

const encoder = new TextEncoder();

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, message));
}

/**
 * The headers that sign `body`, sent at `at` as message `id`: one `v1,<base64 HMAC-SHA256>` of
 * "<id>.<unix seconds>.<body>" per key, space-separated in the order given (current key first).
 * A verifier accepts the request when any one of them matches, so tool servers that still know
 * only the previous key keep working while keys are rotated.
 */
export async function signRequest(keys: SigningKeyBytes, id: string, at: Date, body: string): Promise<SignatureHeaders> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(keys.map(async (key) => `v1,${base64(await hmacSha256(key, signed))}`));
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
}
