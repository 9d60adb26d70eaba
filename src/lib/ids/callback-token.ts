// The token of an async tool call's callback: `ct_` and the base64url of HMAC-SHA256 under
// RUN_ID_KEY of the run id and the call key. Derived, not random, so it is the same on every send
// of the call (a start resent after a crash carries the same body, and the tool server may keep
// the first token it got) and nothing secret is stored per call. It is good for that one call's
// result route only: every other route refuses it (it is neither a deployment nor a run token).
// During a RUN_ID_KEY rotation tokens made under RUN_ID_KEY_PREVIOUS stay good while it is set
// (the edge checks them: src/http/auth/callback-auth.ts).
import { base64url, hmacSha256 } from "../text/encoding";

export const CALLBACK_TOKEN_PATTERN = /^ct_[A-Za-z0-9_-]{43}$/;

export async function callbackToken(key: string, runId: string, callKey: string): Promise<string> {
  return `ct_${base64url(await hmacSha256(key, `callback:${runId}:${callKey}`))}`;
}
