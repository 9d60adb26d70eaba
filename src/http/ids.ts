// Run ids and run tokens. A run id names the run's Durable Object (idFromName), so its shape is
// checked before any object is touched; a run token is a capability shown once and stored only
// as its SHA-256. With an Idempotency-Key both are derived from the key (HMAC under the deployment
// token), so a retried create reaches the same object and hands back the same token.
import { base32, base64url, hmacSha256, randomBytes } from "./encoding";

export const RUN_ID_PATTERN = /^run_[a-z2-7]{26}$/;
export const RUN_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;
/** 1–255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export type RunCredentials = { id: string; token: string };

function runIdOf(bytes: Uint8Array): string {
  // 16 bytes (128 bits) → 26 base32 characters.
  return `run_${base32(bytes.slice(0, 16))}`;
}

function runTokenOf(bytes: Uint8Array): string {
  // 32 bytes → 43 base64url characters.
  return `rt_${base64url(bytes.slice(0, 32))}`;
}

export function newRunCredentials(): RunCredentials {
  return { id: runIdOf(randomBytes(16)), token: runTokenOf(randomBytes(32)) };
}

export async function idempotentRunCredentials(apiToken: string, idempotencyKey: string): Promise<RunCredentials> {
  const [idBytes, tokenBytes] = await Promise.all([
    hmacSha256(apiToken, `run-id:${idempotencyKey}`),
    hmacSha256(apiToken, `run-token:${idempotencyKey}`),
  ]);
  return { id: runIdOf(idBytes), token: runTokenOf(tokenBytes) };
}
