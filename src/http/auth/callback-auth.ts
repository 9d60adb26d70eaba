// Checking an async tool call's callback token at the edge (the token itself: src/lib/ids/callback-token.ts).
import { CALLBACK_TOKEN_PATTERN, callbackToken } from "../../lib/ids/callback-token";

const encoder = new TextEncoder();

/** Whether `token` is the callback token of this run's call under any of `keys`: each tried, compared in constant time. */
export async function isCallbackToken(token: string, keys: readonly string[], runId: string, callKey: string): Promise<boolean> {
  if (!CALLBACK_TOKEN_PATTERN.test(token)) return false;
  const given = encoder.encode(token);
  let valid = false;
  for (const key of keys) {
    const expected = encoder.encode(await callbackToken(key, runId, callKey));
    if (crypto.subtle.timingSafeEqual(given, expected)) valid = true;
  }
  return valid;
}
