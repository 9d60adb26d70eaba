// JSON text written to a byte stream in chunks of about `flushAt` characters: a writer of a long
// document (a run's export) holds one chunk at a time and waits while the reader is behind, so its
// memory does not grow with the document.
const encoder = new TextEncoder();

export class JsonChunks {
  private buffer = "";

  constructor(
    private readonly writer: WritableStreamDefaultWriter<Uint8Array>,
    private readonly flushAt = 64 * 1024,
  ) {}

  /** Appends `text`; waits for the reader when a chunk is full. Throws once the reader has gone. */
  async write(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= this.flushAt) await this.flush();
  }

  /** `items` as a JSON array, each item's text written as it comes. */
  async array<T>(items: Iterable<T>, text: (item: T) => string = (item) => JSON.stringify(item)): Promise<void> {
    await this.write("[");
    let first = true;
    for (const item of items) {
      await this.write(first ? text(item) : `,${text(item)}`);
      first = false;
    }
    await this.write("]");
  }

  async flush(): Promise<void> {
    if (this.buffer === "") return;
    const text = this.buffer;
    this.buffer = "";
    await this.writer.ready;
    // Its failure shows at the next `ready` (the reader cancelled): the writer stops there.
    this.writer.write(encoder.encode(text)).catch(() => undefined);
  }
}
