// Watchers opened with a user token end with it: when the token is revoked (its id), when it
// expires, and within a minute after the key that signed it is no longer accepted (a rotation
// dropped RUN_ID_KEY_PREVIOUS). What a watcher carries (a WatcherToken) comes from the edge in
// WATCHER_TOKEN_HEADER; the rules of when to close and when to look again are pure.
import { WATCHER_TOKEN_HEADER } from "../../../api/rpc/run-rpc";
import type { WatcherToken } from "../../../api/types";

/** Watchers of a token signed by a key that is not the current one are looked at this often. */
export const KEY_CHECK_MS = 60_000;

/** The watcher token the edge sent with an events request, if it is well formed. */
export function watcherTokenOf(request: Request): WatcherToken | undefined {
  const header = request.headers.get(WATCHER_TOKEN_HEADER);
  if (header === null) return undefined;
  try {
    const value = JSON.parse(header) as Partial<WatcherToken>;
    if (typeof value.expiresAt !== "number" || typeof value.key !== "string") return undefined;
    const token: WatcherToken = { expiresAt: value.expiresAt, key: value.key };
    if (typeof value.id === "string") token.id = value.id;
    return token;
  } catch {
    return undefined;
  }
}

/** Whether a watcher of `token` must close now: expired, or signed by a key no longer accepted. */
export function tokenEnded(token: WatcherToken, now: number, acceptedKeys: readonly string[]): boolean {
  return now >= token.expiresAt || !acceptedKeys.includes(token.key);
}

/**
 * When the watchers' tokens must be looked at next: the earliest expiry, and a minute from now
 * while any was signed by a key other than the current one (it may stop being accepted).
 */
export function nextTokenCheck(tokens: readonly WatcherToken[], now: number, currentKey: string): number | undefined {
  let at: number | undefined;
  for (const token of tokens) {
    const due = token.key === currentKey ? token.expiresAt : Math.min(token.expiresAt, now + KEY_CHECK_MS);
    at = at === undefined ? due : Math.min(at, due);
  }
  return at;
}
