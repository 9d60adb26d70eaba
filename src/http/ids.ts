// Run ids and run tokens. A run id names the run's Durable Object (idFromName). It is 11 random
// (or derived) bytes and a 5-byte tag, an HMAC of them under RUN_ID_KEY, so the edge refuses an id
// it did not mint (a typo, a scan, a fuzzer) with 404 before any object is touched. Without
// RUN_ID_KEY a fixed public key is used: ids are then checked but not unforgeable, and a forged id
// only reaches an empty object, which answers 404 too. A run token is a capability shown once and
// stored only as its SHA-256. With an Idempotency-Key both are derived from the key (HMAC under
// the deployment token), so a retried create reaches the same object and hands back the same token.
import { base32, base32Decode, base64url, hmacSha256, randomBytes } from "./encoding";

export const RUN_ID_PATTERN = /^run_[a-z2-7]{26}$/;
export const RUN_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;
/** 1–255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export type RunCredentials = { id: string; token: string };

const ID_BODY_BYTES = 11;
const ID_TAG_BYTES = 5;
/** The tag key when RUN_ID_KEY is not set. Changing it (or RUN_ID_KEY) makes every existing run unreachable. */
const PUBLIC_RUN_ID_KEY = "ratchet/run-id/v1";

/** The key run ids are tagged with: RUN_ID_KEY, else the public default. */
export function runIdKey(env: { RUN_ID_KEY?: string }): string {
  return env.RUN_ID_KEY !== undefined && env.RUN_ID_KEY.length > 0 ? env.RUN_ID_KEY : PUBLIC_RUN_ID_KEY;
}

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

/** Whether `id` is a run id this deployment minted: the documented shape and a valid tag. */
export async function isRunId(id: string, key: string): Promise<boolean> {
  if (!RUN_ID_PATTERN.test(id)) return false;
  const bytes = base32Decode(id.slice("run_".length));
  if (bytes === undefined || bytes.length !== ID_BODY_BYTES + ID_TAG_BYTES) return false;
  const expected = await tagOf(key, bytes.slice(0, ID_BODY_BYTES));
  return crypto.subtle.timingSafeEqual(expected, bytes.slice(ID_BODY_BYTES));
}

function runTokenOf(bytes: Uint8Array): string {
  // 32 bytes → 43 base64url characters.
  return `rt_${base64url(bytes.slice(0, 32))}`;
}

export async function newRunCredentials(idKey: string): Promise<RunCredentials> {
  return { id: await runIdOf(randomBytes(ID_BODY_BYTES), idKey), token: runTokenOf(randomBytes(32)) };
}

export async function idempotentRunCredentials(apiToken: string, idKey: string, idempotencyKey: string): Promise<RunCredentials> {
  const [idBytes, tokenBytes] = await Promise.all([
    hmacSha256(apiToken, `run-id:${idempotencyKey}`),
    hmacSha256(apiToken, `run-token:${idempotencyKey}`),
  ]);
  return { id: await runIdOf(idBytes, idKey), token: runTokenOf(tokenBytes) };
}
