// One Server-Sent Events watcher, read at its reader's pace. Stored events are never queued for it:
// the stream keeps only a cursor (the last seq it gave out) and reads the next page of the event log
// when its reader asks for more (pull), so a reader that never reads holds one page, not the log.
// Live-only events (text deltas) wait in a short queue, each after the stored event it followed,
// so the order a reader sees is the order they happened; past the queue's bound the oldest go (a
// step's stored event carries its whole text anyway). A reader whose stream has had something
// waiting for STALLED_MS with no read is closed (stalled).
//
// A reader that went away is only found out by writing to it. After a quiet spell (PROBE_AFTER_MS
// with nothing written) the stream first writes a probe, an SSE comment line every reader skips,
// and gives it PROBE_WAIT_MS before the events follow: a reader that left is found by the probe
// (the stream is cancelled) and its events are never written into a connection that is gone —
// which a relay in between (`wrangler dev` runs one) would otherwise log as an uncaught
// "Network connection lost." per event.
import type { LoggedEvent } from "../log/event-log";

/** Stored events read per page. */
export const SSE_PAGE_EVENTS = 100;
/** Live frames kept for a reader that is behind; older ones are dropped. */
export const LIVE_FRAMES_KEPT = 256;
/** A reader with something waiting and no read for this long is closed. */
export const STALLED_MS = 30_000;
/** After this long with nothing written, the next events are preceded by a probe. */
export const PROBE_AFTER_MS = 250;
/** How long a probe is given to find a reader that has gone before the events follow it. */
export const PROBE_WAIT_MS = 30;
/** An SSE comment line: readers skip it. */
export const SSE_PROBE = ":\n";

const encoder = new TextEncoder();

export function sseFrame(event: LoggedEvent): string {
  return `id: ${event.seq}\ndata: ${event.text}\n\n`;
}

/** What a stream reads: stored events after a seq (at most `limit`), the newest seq, and the clock. */
export type SseSource = {
  after(seq: number, limit: number): LoggedEvent[];
  newest(): number;
  now(): number;
};

export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  private cursor: number;
  private readonly live: { after: number; text: string }[] = [];
  private wake: (() => void) | undefined;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** When the stream last gave its reader something; the reader is behind from then until it asks again. */
  private lastGaveAt: number;
  /** The reader asked for more and waits for it (a pull is under way). */
  private asking = false;
  private ended = false;
  /** When something was last written to the reader (undefined: never). */
  private wroteAt: number | undefined;
  /** The last thing written was a probe: the next events wait PROBE_WAIT_MS for it. */
  private probed = false;

  constructor(
    private readonly source: SseSource,
    after: number,
    private readonly onEnd: () => void,
  ) {
    this.cursor = after;
    this.lastGaveAt = source.now();
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: (controller) => this.pull(controller),
        cancel: () => this.end(),
      },
      // One page at a time: the next is read when the reader took this one.
      { highWaterMark: 1 },
    );
  }

  /** New stored events were committed. */
  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** A live-only event, after the stored events up to now (or up to seq `after`, when it happened before the newest were stored). */
  pushLive(text: string, after = this.source.newest()): void {
    if (this.ended) return;
    if (this.live.length >= LIVE_FRAMES_KEPT) this.live.shift();
    this.live.push({ after, text: `data: ${text}\n\n` });
    this.notify();
  }

  /** Something has waited for the reader for STALLED_MS without a read. */
  stalled(now: number): boolean {
    return !this.ended && !this.asking && now - this.lastGaveAt > STALLED_MS && (this.live.length > 0 || this.source.newest() > this.cursor);
  }

  /** Ends the stream (the reader gets its end), once. */
  close(): void {
    if (this.ended) return;
    this.end();
    try {
      this.controller?.close();
    } catch {
      // Already closed or errored.
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.notify();
    this.onEnd();
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.asking = true;
    try {
      await this.give(controller);
    } catch {
      // The reader went away while this pull waited (its connection was lost, the stream errored):
      // not an error of the run. The stream ends quietly; a pull never rejects.
      this.end();
    } finally {
      this.asking = false;
      this.lastGaveAt = this.source.now();
    }
  }

  /** Hands `text` to the reader; a reader that has gone (the stream is errored or cancelled) ends the stream instead. */
  private send(controller: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    try {
      controller.enqueue(encoder.encode(text));
      this.wroteAt = this.source.now();
    } catch {
      this.end();
    }
  }

  /** Whether events waiting now should first be preceded by a probe (see the top of this file). */
  private quiet(): boolean {
    return this.wroteAt !== undefined && this.source.now() - this.wroteAt >= PROBE_AFTER_MS;
  }

  private async give(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (this.probed) {
      this.probed = false;
      await new Promise((resolve) => setTimeout(resolve, PROBE_WAIT_MS));
    }
    for (;;) {
      if (this.ended) return;
      const head = this.live[0];
      if (this.quiet() && (head !== undefined || this.source.newest() > this.cursor)) {
        this.probed = true;
        this.send(controller, SSE_PROBE);
        return;
      }
      if (head !== undefined && head.after <= this.cursor) {
        this.live.shift();
        this.send(controller, head.text);
        return;
      }
      let page: LoggedEvent[];
      try {
        page = this.source.after(this.cursor, head === undefined ? SSE_PAGE_EVENTS : Math.min(SSE_PAGE_EVENTS, head.after - this.cursor));
      } catch {
        // The log is gone (the run was deleted): the stream ends.
        this.close();
        return;
      }
      if (page.length > 0) {
        this.cursor = page[page.length - 1]!.seq;
        this.send(controller, page.map(sseFrame).join(""));
        return;
      }
      if (head !== undefined) {
        // The events it followed are not there (rolled back): it goes now.
        this.live.shift();
        this.send(controller, head.text);
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
