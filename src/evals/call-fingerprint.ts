// A tool call's fingerprint: its tool and its canonical input (keys sorted at every depth), so a
// case run's call matches a recorded one whatever order the model wrote the input's keys in.
import { canonicalJson } from "../lib/text/canonical-json";

export function callFingerprint(name: string, input: unknown): string {
  return `${name}\n${canonicalJson(input)}`;
}
