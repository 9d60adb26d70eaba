// Run ids and run tokens. A run id names the run's Durable Object (idFromName). It is 11 random
// (or derived) bytes and a 5-byte tag, an HMAC of them under RUN_ID_KEY, so the edge refuses an id
// it did not mint (a typo, a scan, a fuzzer) with 404 before any object is touched. During a key
// rotation ids tagged under RUN_ID_KEY_PREVIOUS are accepted too. A run token is a capability
// shown once and stored only as its SHA-256. With an Idempotency-Key both are derived from the key
// (HMAC under RUN_ID_KEY, never under a token, so a token rotation changes nothing), so a retried
// create reaches the same object and hands back the same token.
import { base32, base32Decode, base64url, hmacSha256, randomBytes } from "../../lib/encoding";

export const RUN_ID_PATTERN = /^run_[a-z2-7]{26}$/;
export const RUN_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;
export type RunCredentials = { id: string; token: string };

const ID_BODY_BYTES = 11;
const ID_TAG_BYTES = 5;

async function tagOf(key: string, body: Uint8Array): Promise<Uint8Array> {
  return (await hmacSha256(key, `run-id:${base32(body)}`)).slice(0, ID_TAG_BYTES);
}

async function runIdOf(bytes: Uint8Array, key: string): Promise<string> {
  const body = bytes.slice(0, ID_BODY_BYTES);
  const id = new Uint8Array(ID_BODY_BYTES + ID_TAG_BYTES);
  id.set(body);
  id.set(await tagOf(key, body), ID_BODY_BYTES);
  // 16 bytes (88 random bits and a 40-bit tag) → 26 base32 characters.
  return `run_${base32(id)}`;
}

/** Whether `id` is a run id this deployment minted: the documented shape and a valid tag under one of `keys`. */
export async function isRunId(id: string, keys: readonly string[]): Promise<boolean> {
  if (!RUN_ID_PATTERN.test(id)) return false;
  const bytes = base32Decode(id.slice("run_".length));
  if (bytes === undefined || bytes.length !== ID_BODY_BYTES + ID_TAG_BYTES) return false;
  const body = bytes.slice(0, ID_BODY_BYTES);
  const tag = bytes.slice(ID_BODY_BYTES);
  let valid = false;
  // Every key is tried (no early exit), so the time does not tell which key matched.
  for (const key of keys) if (crypto.subtle.timingSafeEqual(await tagOf(key, body), tag)) valid = true;
  return valid;
}

function runTokenOf(bytes: Uint8Array): string {
  // 32 bytes → 43 base64url characters.
  return `rt_${base64url(bytes.slice(0, 32))}`;
}

export async function newRunCredentials(idKey: string): Promise<RunCredentials> {
  return { id: await runIdOf(randomBytes(ID_BODY_BYTES), idKey), token: newRunToken() };
}

/** A fresh random run token (also the replacement when a run's token is rotated). */
export function newRunToken(): string {
  return runTokenOf(randomBytes(32));
}

/**
 * The id and token a create with this Idempotency-Key gets, under RUN_ID_KEY `key`. `scope` keeps
 * the keys of different callers apart ("deployment" for the deployment token).
 */
export async function idempotentRunCredentials(key: string, scope: string, idempotencyKey: string): Promise<RunCredentials> {
  const [idBytes, tokenBytes] = await Promise.all([
    hmacSha256(key, `run-id:${scope}:${idempotencyKey}`),
    hmacSha256(key, `run-token:${scope}:${idempotencyKey}`),
  ]);
  return { id: await runIdOf(idBytes, key), token: runTokenOf(tokenBytes) };
}
