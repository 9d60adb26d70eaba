// Server-sent events read as their blocks (the text between two blank lines), for a reader of one
// stream that wants each frame whole: the A2A door reading a run's events, and the checks and
// benchmarks reading an A2A stream. Leaving the loop (break, return, a throw) cancels the stream, as
// does aborting `signal`, which ends the loop.

/** Each block of `body` (an SSE stream), in order, without its closing blank line. */
export async function* sseBlocks(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const abort = () => void reader.cancel().catch(() => undefined);
  // A signal that fired before the stream came (a deadline passed while it was opened) ends it at once.
  if (signal?.aborted === true) abort();
  else signal?.addEventListener("abort", abort);
  let buffer = "";
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        // The abort cancelled the read in flight (workerd rejects it rather than ending it): the stream is over.
        if (signal?.aborted === true) return;
        throw error;
      }
      const { value, done } = read;
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
