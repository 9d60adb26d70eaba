/** Thrown when a stream holds more than the bytes allowed; the rest is never read. */
export class StreamTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`More than ${maxBytes} bytes.`);
    this.name = "StreamTooLarge";
  }
}

/** Reads a whole stream, refusing more than `maxBytes` without reading it all (a lying length cannot pass). */
export async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new StreamTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
