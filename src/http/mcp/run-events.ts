// A run's stored events as the edge reads them: the run object's own SSE stream (the one GET
// /v1/runs/{id}/events forwards to), from a seq on, parsed. Live-only frames (text deltas, which
// carry no id) are skipped: a step's stored events hold its whole text.
import { CALLER_HEADER, WATCHER_TOKEN_HEADER } from "../../api/rpc/run-rpc";
import type { CallerKind, StoredEvent, WatcherToken } from "../../api/types";
import type { RunStub } from "../run-stub";

export type EventReader = { next(): Promise<StoredEvent | undefined>; close(): void };

/** The stored frames of complete SSE blocks in `buffer` (those with an id), and what is left over. */
export function takeStoredFrames(buffer: string): { frames: string[]; rest: string } {
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  const frames: string[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    if (!lines.some((line) => line.startsWith("id:"))) continue;
    const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (data.length > 0) frames.push(data.join("\n"));
  }
  return { frames, rest };
}

/** Opens the run's stream after `after`, as `caller` (a user token's stream ends with the token). */
export async function readRunEvents(run: RunStub, runId: string, after: number, caller: CallerKind, token?: WatcherToken): Promise<EventReader> {
  const headers = new Headers({ Accept: "text/event-stream", [CALLER_HEADER]: caller });
  if (token !== undefined) headers.set(WATCHER_TOKEN_HEADER, JSON.stringify(token));
  const response = await run.fetch(new Request(`https://run.internal/v1/runs/${encodeURIComponent(runId)}/events?after=${after}`, { headers }));
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`The run's events could not be read (${response.status}).`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const queue: StoredEvent[] = [];
  let buffer = "";
  let closed = false;
  return {
    async next() {
      while (queue.length === 0) {
        if (closed) return undefined;
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
        const taken = takeStoredFrames(buffer);
        buffer = taken.rest;
        for (const frame of taken.frames) queue.push(JSON.parse(frame) as StoredEvent);
      }
      return queue.shift();
    },
    close() {
      closed = true;
      reader.cancel().catch(() => undefined);
    },
  };
}
