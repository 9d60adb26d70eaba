// Experiment ids: `exp_` and 26 base32 characters, tagged under RUN_ID_KEY apart from run and
// schedule ids (./tagged-ids.ts).
import { isTaggedId, newTaggedId } from "./tagged-ids";

const KIND = "experiment-id";

export function newExperimentId(key: string): Promise<string> {
  return newTaggedId("exp", KIND, key);
}

export function isExperimentId(id: string, keys: readonly string[]): Promise<boolean> {
  return isTaggedId(id, "exp", KIND, keys);
}
