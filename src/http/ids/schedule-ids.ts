// Schedule ids: `sch_` and 26 base32 characters, 11 random bytes and a 5-byte tag under RUN_ID_KEY
// (src/lib/ids/run-ids.ts, tagged apart from run ids), so the edge answers 404 to an id it did not
// mint before any object is touched. During a key rotation ids tagged under RUN_ID_KEY_PREVIOUS
// are accepted too.
import { base32Decode, randomBytes } from "../../lib/encoding";
import { ID_BODY_BYTES, ID_TAG_BYTES, tagOf, taggedIdOf } from "../../lib/ids/run-ids";

export const SCHEDULE_ID_PATTERN = /^sch_[a-z2-7]{26}$/;
const KIND = "schedule-id";

export function newScheduleId(key: string): Promise<string> {
  return taggedIdOf(randomBytes(ID_BODY_BYTES), key, "sch", KIND);
}

export async function isScheduleId(id: string, keys: readonly string[]): Promise<boolean> {
  if (!SCHEDULE_ID_PATTERN.test(id)) return false;
  const bytes = base32Decode(id.slice("sch_".length));
  if (bytes === undefined || bytes.length !== ID_BODY_BYTES + ID_TAG_BYTES) return false;
  const body = bytes.slice(0, ID_BODY_BYTES);
  const tag = bytes.slice(ID_BODY_BYTES);
  let valid = false;
  // Every key is tried (no early exit), so the time does not tell which key matched.
  for (const key of keys) if (crypto.subtle.timingSafeEqual(await tagOf(key, body, KIND), tag)) valid = true;
  return valid;
}
