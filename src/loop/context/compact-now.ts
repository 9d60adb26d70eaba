// Compaction on demand of a history no loop is running: a finished or waiting run's, which the
// person wants shorter before it goes on. One summary step (compaction.ts, reason "request"), under
// the caller's journal like any step, keyed after the model calls this part of the run made; the
// summary record joins the history, and the next part of the run starts from it. A provider's own
// compaction cannot run outside a model call: the caller asks for it before the next one instead
// (compactionRequests).
import { compact } from "./compaction";
import { createLoopState } from "../loop-state";
import type { ChatMessage, RunToolLoopOptions } from "../types";

export type CompactNowOptions = Pick<RunToolLoopOptions, "generate" | "model" | "messages" | "step" | "budget" | "compaction" | "maxToolResultTokens" | "onStep" | "signal"> & {
  /** Model calls made under this journal so far (the step key counts from there). */
  steps: number;
  /** Replace the compaction's own instructions for this one. */
  instructions?: string;
};

export type CompactNowResult = {
  /** The history, with the summary record at its end when one was written. */
  messages: ChatMessage[];
  /** False when no turn older than the newest was left to summarize, or the summary came back empty. */
  compacted: boolean;
  costUsd: number;
};

export async function compactNow(options: CompactNowOptions): Promise<CompactNowResult> {
  const mode = options.compaction?.mode;
  if (mode !== "summary" && mode !== "auto") throw new Error(`compactNow writes the loop's own summary: compaction mode ${mode ?? "(none)"} cannot compact outside a model call.`);
  const state = createLoopState(options);
  state.steps = options.steps;
  const before = state.messages.length;
  await compact(state, "request", options.instructions);
  return { messages: state.messages, compacted: state.messages.length > before, costUsd: state.stepCosts };
}
