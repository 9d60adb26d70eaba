// Ids the edge mints for objects other than runs (schedules, experiments): a prefix and 26 base32
// characters, 11 random bytes and a 5-byte tag under RUN_ID_KEY tagged apart by kind
// (src/lib/ids/run-ids.ts), so an id it did not mint is answered 404 before any object is touched.
// During a key rotation ids tagged under RUN_ID_KEY_PREVIOUS are accepted too.
import { base32Decode, randomBytes } from "../../lib/text/encoding";
import { ID_BODY_BYTES, ID_TAG_BYTES, tagOf, taggedIdOf } from "../../lib/ids/run-ids";

export function newTaggedId(prefix: string, kind: string, key: string): Promise<string> {
  return taggedIdOf(randomBytes(ID_BODY_BYTES), key, prefix, kind);
}

export async function isTaggedId(id: string, prefix: string, kind: string, keys: readonly string[]): Promise<boolean> {
  if (!new RegExp(`^${prefix}_[a-z2-7]{26}$`).test(id)) return false;
  const bytes = base32Decode(id.slice(prefix.length + 1));
  if (bytes === undefined || bytes.length !== ID_BODY_BYTES + ID_TAG_BYTES) return false;
  const body = bytes.slice(0, ID_BODY_BYTES);
  const tag = bytes.slice(ID_BODY_BYTES);
  let valid = false;
  // Every key is tried (no early exit), so the time does not tell which key matched.
  for (const key of keys) if (crypto.subtle.timingSafeEqual(await tagOf(key, body, kind), tag)) valid = true;
  return valid;
}
