// How run ids and run tokens are made from bytes, and derived from a key (pure: Web Crypto only).
// The edge mints and checks them (src/http/ids/ids.ts); a schedule's object derives the id and token
// of each fire's run the same way (src/durable/schedule/fire-credentials.ts), so both reach the same
// run object. A run id is 11 random (or derived) bytes and a 5-byte tag, an HMAC of them under
// RUN_ID_KEY, so the edge refuses an id it did not mint before any object is touched.
import { base32, base64url, hmacSha256 } from "../text/encoding";

export type RunCredentials = { id: string; token: string };

export const ID_BODY_BYTES = 11;
export const ID_TAG_BYTES = 5;

/** The tag of an id's body under `key` (`kind` keeps the ids of runs and schedules apart). */
export async function tagOf(key: string, body: Uint8Array, kind = "run-id"): Promise<Uint8Array> {
  return (await hmacSha256(key, `${kind}:${base32(body)}`)).slice(0, ID_TAG_BYTES);
}

/** `prefix` and 26 base32 characters: the first 11 bytes of `bytes` and their tag under `key`. */
export async function taggedIdOf(bytes: Uint8Array, key: string, prefix = "run", kind = "run-id"): Promise<string> {
  const body = bytes.slice(0, ID_BODY_BYTES);
  const id = new Uint8Array(ID_BODY_BYTES + ID_TAG_BYTES);
  id.set(body);
  id.set(await tagOf(key, body, kind), ID_BODY_BYTES);
  // 16 bytes (88 random bits and a 40-bit tag) → 26 base32 characters.
  return `${prefix}_${base32(id)}`;
}

export function runIdOf(bytes: Uint8Array, key: string): Promise<string> {
  return taggedIdOf(bytes, key);
}

export function runTokenOf(bytes: Uint8Array): string {
  // 32 bytes → 43 base64url characters.
  return `rt_${base64url(bytes.slice(0, 32))}`;
}

/**
 * The id and token a create with this idempotency key gets, under RUN_ID_KEY `key`. `scope` keeps
 * the keys of different callers apart ("deployment" for the deployment token, "subject:<s>" for a
 * user token's, "schedule:<id>" for a schedule's fires).
 */
export async function idempotentRunCredentials(key: string, scope: string, idempotencyKey: string): Promise<RunCredentials> {
  const [idBytes, tokenBytes] = await Promise.all([
    hmacSha256(key, `run-id:${scope}:${idempotencyKey}`),
    hmacSha256(key, `run-token:${scope}:${idempotencyKey}`),
  ]);
  return { id: await runIdOf(idBytes, key), token: runTokenOf(tokenBytes) };
}
