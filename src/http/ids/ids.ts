// Run ids and run tokens. A run id names the run's Durable Object (idFromName). It is 11 random
// (or derived) bytes and a 5-byte tag, an HMAC of them under RUN_ID_KEY, so the edge refuses an id
// it did not mint (a typo, a scan, a fuzzer) with 404 before any object is touched. During a key
// rotation ids tagged under RUN_ID_KEY_PREVIOUS are accepted too. A run token is a capability
// shown once and stored only as its SHA-256. With an Idempotency-Key both are derived from the key
// (HMAC under RUN_ID_KEY, never under a token, so a token rotation changes nothing), so a retried
// create reaches the same object and hands back the same token.
import { base32Decode, randomBytes } from "../../lib/text/encoding";
import { ID_BODY_BYTES, ID_TAG_BYTES, idempotentRunCredentials, runIdOf, runTokenOf, tagOf, type RunCredentials } from "../../lib/ids/run-ids";

export { idempotentRunCredentials, type RunCredentials };
export const RUN_ID_PATTERN = /^run_[a-z2-7]{26}$/;
export const RUN_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;

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

export async function newRunCredentials(idKey: string): Promise<RunCredentials> {
  return { id: await runIdOf(randomBytes(ID_BODY_BYTES), idKey), token: newRunToken() };
}

/** A fresh random run token (also the replacement when a run's token is rotated). */
export function newRunToken(): string {
  return runTokenOf(randomBytes(32));
}
