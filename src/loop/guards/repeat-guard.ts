// Repeated calls and doom loops. A fingerprint is the tool name plus the
// canonical JSON of the input: the same tool with other input is reasoning, the same input is a loop.
import { canonicalJsonOf } from "../../lib/text/canonical-json";
import { Recent } from "../../lib/recent";
import type { ToolCall } from "../types";

/** The third identical call is answered "repeated-call" instead of running. */
export const REPEAT_LIMIT = 3;

const prints = new Recent<ToolCall, string>();

/** Made once for the newest few calls (recent.ts): the loop detectors read it first, then the repeated-call guard. */
export function fingerprint(call: ToolCall): string {
  return prints.get(call) ?? prints.set(call, `${call.name}\u0000${canonicalJsonOf(call.input)}`);
}

export type RepeatGuard = {
  /** Counts the call and returns how many times its fingerprint has now been seen. */
  record(call: ToolCall): number;
  /** True once a model repeated a call after it was told "repeated-call": go to the last turn. */
  readonly doomLoop: boolean;
};

export function createRepeatGuard(): RepeatGuard {
  const counts = new Map<string, number>();
  let doomLoop = false;
  return {
    record(call) {
      const key = fingerprint(call);
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      if (count > REPEAT_LIMIT) doomLoop = true;
      return count;
    },
    get doomLoop() {
      return doomLoop;
    },
  };
}

export function repeatedCallText(name: string): string {
  return `repeated-call: ${name} was already called ${REPEAT_LIMIT - 1} times with this same input. Use the results you have or try something else.`;
}
