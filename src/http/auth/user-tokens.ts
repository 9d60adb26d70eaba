// User tokens: a capability for one subject (an app's user id), minted by the app's backend with the
// deployment token (POST /v1/tokens) and held by the user's phone. Checked without storage:
//
//   ut_<base64url(JSON {"sub": subject, "exp": unix seconds})>.<base64url(HMAC-SHA256(key, payload part))>
//
// The key is derived from RUN_ID_KEY (HMAC(RUN_ID_KEY, "user-token/v1")), so user tokens need no
// secret of their own and rotate with it: tokens signed under RUN_ID_KEY_PREVIOUS stay good while
// it is set (a rotation that keeps the previous key 30 days loses no token). A single token cannot
// be revoked before its expiry; rotating RUN_ID_KEY and dropping the previous key voids them all.
import { base64url, base64urlText, hmacSha256 } from "../../lib/encoding";
import { SUBJECT_PATTERN } from "../../api/schemas";

export const USER_TOKEN_PATTERN = /^ut_([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{43})$/;

export type UserClaims = { subject: string; expiresAt: number };

const encoder = new TextEncoder();

/** The signing key of user tokens under RUN_ID_KEY `runIdKey`. */
async function signingKey(runIdKey: string): Promise<string> {
  return base64url(await hmacSha256(runIdKey, "user-token/v1"));
}

async function signature(runIdKey: string, payload: string): Promise<Uint8Array> {
  return hmacSha256(await signingKey(runIdKey), payload);
}

/** A user token for `subject`, good until `expiresAt` (ms since the epoch, kept in whole seconds). */
export async function mintUserToken(runIdKey: string, subject: string, expiresAt: number): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify({ sub: subject, exp: Math.floor(expiresAt / 1000) })));
  return `ut_${payload}.${base64url(await signature(runIdKey, payload))}`;
}

/** The token's subject and expiry when it is well formed, signed under one of `keys` and not expired at `now`. */
export async function verifyUserToken(token: string, keys: readonly string[], now: number): Promise<UserClaims | undefined> {
  const match = USER_TOKEN_PATTERN.exec(token);
  if (match === null) return undefined;
  const [, payload, mac] = match as unknown as [string, string, string];
  const given = encoder.encode(mac);
  let valid = false;
  // Every key is tried (no early exit), so the time does not tell which key matched.
  for (const key of keys) if (crypto.subtle.timingSafeEqual(encoder.encode(base64url(await signature(key, payload))), given)) valid = true;
  if (!valid) return undefined;
  const text = base64urlText(payload);
  if (text === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { sub, exp } = (claims ?? {}) as { sub?: unknown; exp?: unknown };
  if (typeof sub !== "string" || !SUBJECT_PATTERN.test(sub) || typeof exp !== "number" || !Number.isFinite(exp)) return undefined;
  const expiresAt = exp * 1000;
  return now < expiresAt ? { subject: sub, expiresAt } : undefined;
}
