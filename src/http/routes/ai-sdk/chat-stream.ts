// The AI SDK chat's answer: the run's own event stream (Server-Sent Events from its object, read at
// the reader's pace) translated chunk by chunk (src/api/ai-sdk/event-chunks.ts) into the UI message
// stream protocol: `data: <chunk>` lines, `data: [DONE]` at the end. Nothing is kept here beyond
// the one message's mapping state; the stream ends at the message's end (finish, error, abort, the
// person's next message), or with no message when the run stopped before the one it waits for began.
import { openingChunks, type ChunkState } from "../../../api/ai-sdk/chunk-state";
import { chunksFor, type ChatEvent } from "../../../api/ai-sdk/event-chunks";
import type { UIChunk } from "../../../api/ai-sdk/ui-chunks";
import type { ToolMessage } from "../../../loop/types";

export const CHAT_STREAM_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
} as const;

const encoder = new TextEncoder();

function frame(chunk: UIChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The events of one SSE text block (`id:`/`data:` lines; comment lines, the stream's probes, skipped). */
function eventsOf(block: string): ChatEvent[] {
  const out: ChatEvent[] = [];
  for (const line of block.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    out.push(JSON.parse(line.slice(6)) as ChatEvent);
  }
  return out;
}

export type ChatStreamSource = {
  /** The run's events (its object's SSE answer), from where the message starts. */
  events: ReadableStream<Uint8Array>;
  state: ChunkState;
  /** The run's whole tool results (its history), read again when an event names a call not yet there. */
  loadResults: () => Promise<Map<string, ToolMessage>>;
};

/** Ids of the calls whose whole result an event needs. */
function callsNamed(event: ChatEvent): string[] {
  if (event.type === "tool-result") return [String(event.callId)];
  if (event.type === "answered") return Array.isArray(event.results) ? (event.results as { callId: string }[]).map((result) => result.callId) : [String(event.callId)];
  return [];
}

export function chatStream(source: ChatStreamSource): ReadableStream<Uint8Array> {
  const reader = source.events.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let results = new Map<string, ToolMessage>();
  let started = false;
  const { state } = source;

  async function translate(event: ChatEvent): Promise<UIChunk[]> {
    const needed = callsNamed(event);
    if (needed.some((id) => !results.has(id))) results = await source.loadResults();
    return chunksFor(state, event, (id) => results.get(id));
  }

  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      let text = "";
      if (!started) {
        started = true;
        for (const chunk of openingChunks(state)) text += frame(chunk);
      }
      while (text === "" && !state.done) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while (!state.done && (cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          for (const event of eventsOf(block)) for (const chunk of await translate(event)) text += frame(chunk);
        }
      }
      if (text !== "") controller.enqueue(encoder.encode(text));
      if (state.done || text === "") {
        // The message ended (or its run's stream did): the run's stream is let go.
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
        await reader.cancel().catch(() => undefined);
      }
    },
    cancel: async () => {
      await reader.cancel().catch(() => undefined);
    },
  }, { highWaterMark: 0 });
}
