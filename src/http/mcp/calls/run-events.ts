// A run's stored events as an MCP call reads them: the run object's own SSE stream, opened through
// the one watch the events route uses (../../routes/runs/run-watch.ts), from a seq on, parsed.
// Live-only frames (text deltas, which carry no id) are skipped: a step's stored events hold its
// whole text. One live frame is kept: `elicitation-failed`, which ends a call's wait on a question.
import type { RunEvent, StoredEvent } from "../../../api/types";
import type { RunWatch } from "../../routes/runs/run-watch";

export type ElicitationFailed = Extract<RunEvent, { type: "elicitation-failed" }>;

/** What a call reads of its run: the stored events, and a failed elicitation. */
export type CallEvent = StoredEvent | ElicitationFailed;

export type EventReader = { next(): Promise<CallEvent | undefined>; close(): void };

const ELICITATION_FAILED = /^\{"type":"elicitation-failed"/;

/** The frames of complete SSE blocks in `buffer` a call reads (those with an id, and a failed elicitation), and what is left over. */
export function takeStoredFrames(buffer: string): { frames: string[]; rest: string } {
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  const frames: string[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (data.length === 0) continue;
    const text = data.join("\n");
    if (lines.some((line) => line.startsWith("id:")) || ELICITATION_FAILED.test(text)) frames.push(text);
  }
  return { frames, rest };
}

/**
 * Opens the run's stream after `after`. `next` answers undefined once the reader closed it; when
 * the run closes it first, `next` throws the watch's reason (a revoked or expired user token: 401).
 */
export async function readRunEvents(watch: RunWatch, after: number): Promise<EventReader> {
  const response = await watch.open(after);
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`The run's events could not be read (${response.status}).`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const queue: CallEvent[] = [];
  let buffer = "";
  let closed = false;
  return {
    async next() {
      while (queue.length === 0) {
        if (closed) return undefined;
        const { value, done } = await reader.read();
        if (done) {
          if (closed) return undefined;
          throw await watch.ended();
        }
        buffer += decoder.decode(value, { stream: true });
        const taken = takeStoredFrames(buffer);
        buffer = taken.rest;
        for (const frame of taken.frames) queue.push(JSON.parse(frame) as CallEvent);
      }
      return queue.shift();
    },
    close() {
      closed = true;
      reader.cancel().catch(() => undefined);
    },
  };
}
