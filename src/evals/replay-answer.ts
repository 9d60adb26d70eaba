// How a case run answers one tool call (docs/evals.md, "Tools answered from the recording"): from
// the recording where the call matches one (same tool, same canonical input; the n-th such call of
// the case takes the n-th such call of the recording), live where the experiment's mode allows, else
// refused with a result the model reads. Pure: the run object keeps the decisions (src/durable/evals).
import type { ReplayAnswer, ReplayMode } from "../api/resources/eval-types";
import type { ToolOutput } from "../loop/types";
import type { ToolStepValue } from "../loop/tool-calls/tool-step";

export type { ReplayAnswer };

/** What answers a call: the recorded call at `candidate` (its index in the recording), or none. */
export function replayAnswer(mode: ReplayMode, candidate: number | undefined): ReplayAnswer {
  if (mode === "live") return "live";
  if (candidate !== undefined) return "recording";
  return mode === "replay-then-live" ? "live" : "refused";
}

/** The result the model reads for a refused call. */
export function refusedText(name: string): string {
  return `Not run: the recording this run replays holds no ${name} call with this input, and its experiment answers tool calls from the recording only (mode replay).`;
}

/** A recorded answer as the tool's output: the same content and typed value; it costs nothing now (the recording paid for it). */
export function recordedOutput(value: ToolStepValue): ToolOutput {
  const output: ToolOutput = { content: value.content, costUsd: 0 };
  if (value.isError) output.isError = true;
  if (value.value !== undefined) output.value = value.value;
  return output;
}
