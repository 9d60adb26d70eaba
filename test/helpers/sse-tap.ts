// A fetch that hands each answer to its caller (an SDK's client) unchanged and also keeps, as text,
// every byte of every streamed answer as it arrives: what a client's SSE parser hides (comment
// lines, ids) is there for the test to see. `until` waits on it, checked again at each chunk.
export type SseTap = {
  fetch: typeof fetch;
  /** Everything the streamed answers have sent so far, in arrival order. */
  text(): string;
  /** Resolves once `seen` holds for the text so far; fails after `ms` with `what`. */
  until(seen: (text: string) => boolean, ms: number, what: string): Promise<void>;
  /** Stops keeping the answers' bytes (the tap's side of each stream is cancelled). */
  close(): void;
};

export function sseTap(inner: typeof fetch): SseTap {
  let text = "";
  const waiters = new Set<() => void>();
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const pump = async (body: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    readers.push(reader);
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      for (const waiter of [...waiters]) waiter();
    }
  };
  return {
    fetch: async (input, init) => {
      const response = await inner(input, init);
      if (response.body === null || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
      const [mine, theirs] = response.body.tee();
      void pump(mine);
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    text: () => text,
    close: () => {
      for (const reader of readers.splice(0)) void reader.cancel().catch(() => undefined);
    },
    until: (seen, ms, what) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!seen(text)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${what} (within ${ms} ms); the streams sent: ${JSON.stringify(text.slice(-600))}`));
        }, ms);
        waiters.add(check);
        check();
      }),
  };
}

/** Whether `text` holds a keep-alive comment line (a line `: keep-alive`). */
export function hasKeepAlive(text: string): boolean {
  return /(^|\n): keep-alive\n/.test(text);
}
