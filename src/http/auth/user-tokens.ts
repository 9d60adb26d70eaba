// User tokens: a capability for one subject (an app's user id), minted by the app's backend with the
// deployment token (POST /v1/tokens) and held by the user's phone. Checked by their signature:
//
//   ut_<base64url(JSON {"sub": subject, "exp": unix seconds, "jti": id, "bud"?: USD a day})>.<base64url(HMAC-SHA256(key, payload part))>
//
// The key is derived from RUN_ID_KEY (HMAC(RUN_ID_KEY, "user-token/v1")), so user tokens need no
// secret of their own and rotate with it: tokens signed under RUN_ID_KEY_PREVIOUS stay good while
// it is set (a rotation that keeps the previous key 30 days loses no token); dropping the previous
// key voids them all. One token is revoked before its expiry by its id (DELETE /v1/tokens/:id): the
// revocation is kept by the subject's inbox, which the edge asks on every request with the token.
// `bud`, when set, is the token's own daily spend limit for its subject's runs (at most
// SUBJECT_BUDGET_USD_PER_DAY). Tokens minted before ids existed carry no `jti`.
import { base64url, base64urlText, hmacSha256, randomBytes } from "../../lib/text/encoding";
import { SUBJECT_PATTERN } from "../../api/rules/subject";

export const USER_TOKEN_PATTERN = /^ut_([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{43})$/;

export type UserClaims = {
  subject: string;
  expiresAt: number;
  /** The token's id (its `jti`), by which it is revoked; absent on tokens minted before ids existed. */
  tokenId?: string;
  /** The token's own daily spend limit (USD), when it was minted with one. */
  budgetUsdPerDay?: number;
  /** Which of the keys signed it: 0 for RUN_ID_KEY, 1 for RUN_ID_KEY_PREVIOUS. */
  keyIndex: number;
};

/** A token's id: 22 base64url characters (128 random bits). */
export const TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

const encoder = new TextEncoder();

/** The signing key of user tokens under RUN_ID_KEY `runIdKey`. */
async function signingKey(runIdKey: string): Promise<string> {
  return base64url(await hmacSha256(runIdKey, "user-token/v1"));
}

async function signature(runIdKey: string, payload: string): Promise<Uint8Array> {
  return hmacSha256(await signingKey(runIdKey), payload);
}

export type MintOptions = { tokenId?: string; budgetUsdPerDay?: number };

/** A user token for `subject`, good until `expiresAt` (ms since the epoch, kept in whole seconds). */
export async function mintUserToken(runIdKey: string, subject: string, expiresAt: number, options: MintOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = { sub: subject, exp: Math.floor(expiresAt / 1000) };
  if (options.tokenId !== undefined) claims.jti = options.tokenId;
  if (options.budgetUsdPerDay !== undefined) claims.bud = options.budgetUsdPerDay;
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  return `ut_${payload}.${base64url(await signature(runIdKey, payload))}`;
}

/** A fresh token id. */
export function newTokenId(): string {
  return base64url(randomBytes(16));
}

/** The token's subject and expiry when it is well formed, signed under one of `keys` and not expired at `now`. */
export async function verifyUserToken(token: string, keys: readonly string[], now: number): Promise<UserClaims | undefined> {
  const match = USER_TOKEN_PATTERN.exec(token);
  if (match === null) return undefined;
  const [, payload, mac] = match as unknown as [string, string, string];
  const given = encoder.encode(mac);
  let keyIndex = -1;
  // Every key is tried (no early exit), so the time does not tell which key matched.
  for (const [index, key] of keys.entries()) if (crypto.subtle.timingSafeEqual(encoder.encode(base64url(await signature(key, payload))), given) && keyIndex < 0) keyIndex = index;
  if (keyIndex < 0) return undefined;
  const text = base64urlText(payload);
  if (text === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { sub, exp, jti, bud } = (claims ?? {}) as { sub?: unknown; exp?: unknown; jti?: unknown; bud?: unknown };
  if (typeof sub !== "string" || !SUBJECT_PATTERN.test(sub) || typeof exp !== "number" || !Number.isFinite(exp)) return undefined;
  if (jti !== undefined && (typeof jti !== "string" || !TOKEN_ID_PATTERN.test(jti))) return undefined;
  if (bud !== undefined && (typeof bud !== "number" || !Number.isFinite(bud) || bud < 0)) return undefined;
  const expiresAt = exp * 1000;
  if (now >= expiresAt) return undefined;
  const verified: UserClaims = { subject: sub, expiresAt, keyIndex };
  if (typeof jti === "string") verified.tokenId = jti;
  if (typeof bud === "number") verified.budgetUsdPerDay = bud;
  return verified;
}
