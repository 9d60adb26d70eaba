// An SSE answer read as it arrives, each frame stamped with performance.now(): for the benchmarks
// that compare when two streams deliver the same thing (bench/chat.ts). It reads in the
// background; `until` waits for a frame, checked again on each frame that arrives.
import { changes } from "../../test/e2e/support/changes";

export type TimedFrame = { at: number; id?: string; data: string };

export type TimedSse = {
  /** When the answer's headers arrived. */
  openedAt: number;
  status: number;
  frames: TimedFrame[];
  until(check: (frames: TimedFrame[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): void;
};

export async function timedSse(url: string, init: RequestInit): Promise<TimedSse> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const openedAt = performance.now();
  const frames: TimedFrame[] = [];
  const arrived = changes();
  let ended = false;
  if (response.ok && response.body !== null) {
    const body = response.body;
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          const at = performance.now();
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const frame: TimedFrame = { at, data: "" };
            for (const line of block.split("\n")) {
              if (line.startsWith("id:")) frame.id = line.slice(3).trim();
              if (line.startsWith("data:")) frame.data += line.slice(5).trimStart();
            }
            if (frame.data !== "") frames.push(frame);
          }
          arrived.changed();
        }
      } catch {
        // Closed by close(), or by the service.
      } finally {
        ended = true;
        arrived.changed();
      }
    })();
  } else {
    ended = true;
  }
  return {
    openedAt,
    status: response.status,
    frames,
    until: (check, timeoutMs, what) =>
      arrived.until(
        () => {
          if (check(frames)) return true;
          if (ended) throw new Error(`${url}: the stream ended before ${what} (${frames.length} frames)`);
          return false;
        },
        timeoutMs,
        () => `${url}: no ${what} within ${timeoutMs} ms (${frames.length} frames)`,
      ),
    close: () => controller.abort(),
  };
}

/** The frame's JSON `type`, or undefined (a `[DONE]`, a comment). */
export function typeOf(frame: TimedFrame): string | undefined {
  if (!frame.data.startsWith("{")) return undefined;
  return (JSON.parse(frame.data) as { type?: string }).type;
}
