// The fingerprints of the keys user tokens are accepted under now (RUN_ID_KEY, or the local default,
// and RUN_ID_KEY_PREVIOUS while it is set), as objects compare them with their watchers' tokens.
import { currentRunIdKey } from "../../../config/settings";
import { keyFingerprint } from "../../../lib/hashing/key-fingerprint";

export type AcceptedKeys = { current: string; accepted: string[] };

const cache = new WeakMap<object, Promise<AcceptedKeys>>();

export function acceptedKeys(env: Env): Promise<AcceptedKeys> {
  let keys = cache.get(env);
  if (keys === undefined) {
    const previous = typeof env.RUN_ID_KEY_PREVIOUS === "string" && env.RUN_ID_KEY_PREVIOUS !== "" ? env.RUN_ID_KEY_PREVIOUS : undefined;
    keys = (async () => {
      const current = await keyFingerprint(currentRunIdKey(env));
      return { current, accepted: previous === undefined ? [current] : [current, await keyFingerprint(previous)] };
    })();
    cache.set(env, keys);
  }
  return keys;
}
