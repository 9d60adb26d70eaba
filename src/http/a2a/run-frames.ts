// A run's events as the A2A and AG-UI doors read them: the run object's own SSE stream, opened through the
// one watch the events route uses (../routes/runs/run-watch.ts), parsed into stored events (with
// their seq) and live ones (text deltas, no seq). The A2A facade keeps no copy of a run's events:
// a snapshot is a read of this stream up to the run's newest seq, a subscription a read that goes on.
import type { StoredEvent } from "../../api/types";
import type { LiveEvent } from "../../api/a2a/stream-events";
import { sseBlocks } from "../../lib/sse/sse-blocks";
import type { RunWatch } from "../routes/runs/run-watch";

export type RunFrame = { stored: StoredEvent } | { live: LiveEvent };

/** Parses one SSE block of the run's stream (`id:` and `data:` lines; a comment-only probe gives nothing). */
function frameOf(block: string): RunFrame | undefined {
  let data = "";
  for (const line of block.split("\n")) if (line.startsWith("data: ")) data += line.slice(6);
  if (data === "") return undefined;
  const event = JSON.parse(data) as { type: string; seq?: number; delta?: string; step?: number };
  if (typeof event.seq === "number") return { stored: event as StoredEvent };
  if (event.type === "text" && typeof event.delta === "string") return { live: typeof event.step === "number" ? { type: "text", delta: event.delta, step: event.step } : { type: "text", delta: event.delta } };
  if (event.type === "text-reset") return { live: { type: "text-reset" } };
  return undefined;
}

/**
 * The run's events after seq `after`, in order, as long as the reader reads (break out of the loop,
 * or abort `signal`, to close the stream). Throws when the object refuses the stream (its answer's
 * error message), and when the run closes it while it is read (the watch's reason: a revoked or
 * expired user token is its 401).
 */
export async function* runFrames(watch: RunWatch, after: number, signal?: AbortSignal): AsyncGenerator<RunFrame> {
  const response = await watch.open(after);
  if (!response.ok || response.body === null) {
    const text = await response.text();
    throw new Error(`The run's events could not be read (${response.status}): ${text}`);
  }
  for await (const block of sseBlocks(response.body, signal)) {
    const frame = frameOf(block);
    if (frame !== undefined) yield frame;
  }
  if (signal?.aborted !== true) throw await watch.ended();
}
