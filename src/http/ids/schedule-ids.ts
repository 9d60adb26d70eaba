// Schedule ids: `sch_` and 26 base32 characters, tagged under RUN_ID_KEY apart from run ids
// (./tagged-ids.ts).
import { isTaggedId, newTaggedId } from "./tagged-ids";

export const SCHEDULE_ID_PATTERN = /^sch_[a-z2-7]{26}$/;
const KIND = "schedule-id";

export function newScheduleId(key: string): Promise<string> {
  return newTaggedId("sch", KIND, key);
}

export function isScheduleId(id: string, keys: readonly string[]): Promise<boolean> {
  return isTaggedId(id, "sch", KIND, keys);
}
