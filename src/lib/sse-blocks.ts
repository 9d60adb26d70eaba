// Server-sent events read as their blocks (the text between two blank lines), for a reader of one
// stream that wants each frame whole: the A2A door reading a run's events, and the checks and
// benchmarks reading an A2A stream. Leaving the loop (break, return, a throw) cancels the stream.

/** Each block of `body` (an SSE stream), in order, without its closing blank line. */
export async function* sseBlocks(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", abort);
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        yield block;
      }
    }
  } finally {
    signal?.removeEventListener("abort", abort);
    await reader.cancel().catch(() => undefined);
  }
}

/** A block's field (`id`, `data`, `event`): its first line's value, or undefined. */
export function sseField(block: string, name: string): string | undefined {
  const prefix = `${name}: `;
  return block.split("\n").find((line) => line.startsWith(prefix))?.slice(prefix.length);
}
