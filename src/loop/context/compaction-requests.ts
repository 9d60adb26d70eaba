// Compaction on demand: the caller asks for a compaction before a given model call of this loop
// call (options.compactionRequests), whatever the size of the prompt. With the loop's summary it
// is a summary step run before that call (compaction.ts); with the provider's own compaction the
// call itself asks the provider to compact at once: its trigger is lowered to the smallest one, so
// the provider compacts and pauses (a prompt smaller than that has nothing worth compacting, and
// the call goes on as usual). A pure function of the options, so a replay decides the same.
import type { CompactionRequest, RunToolLoopOptions } from "../types";

/** The trigger of a native compaction asked for on demand: the smallest `compaction.atTokens` a run may set. */
export const REQUESTED_NATIVE_TRIGGER = 1_000;

/** The caller's request for a compaction before model call `step`, if any (the newest one for that call wins). */
export function requestAt(options: Pick<RunToolLoopOptions, "compactionRequests" | "compaction">, step: number): CompactionRequest | undefined {
  if (options.compaction === undefined || options.compaction.mode === "off") return undefined;
  return (options.compactionRequests ?? []).findLast((request) => request.step === step);
}

/** The native compaction model call `step` asks for on the caller's request, if any. */
export function requestedNativeCompaction(options: Pick<RunToolLoopOptions, "compactionRequests" | "compaction">, step: number): { atTokens: number; instructions?: string } | undefined {
  if (options.compaction?.mode !== "native") return undefined;
  const request = requestAt(options, step);
  if (request === undefined) return undefined;
  const atTokens = Math.min(REQUESTED_NATIVE_TRIGGER, options.compaction.atTokens);
  return request.instructions === undefined ? { atTokens } : { atTokens, instructions: request.instructions };
}

/** The caller's request for a summary compaction before model call `step` (modes "summary" and "auto"). */
export function requestedSummary(options: Pick<RunToolLoopOptions, "compactionRequests" | "compaction">, step: number): CompactionRequest | undefined {
  const mode = options.compaction?.mode;
  if (mode !== "summary" && mode !== "auto") return undefined;
  return requestAt(options, step);
}
