// Sends events to every watcher of a run (or an inbox): hibernatable WebSockets (ctx.getWebSockets)
// and SSE streams (held in memory while open, each read at its reader's pace: sse-stream.ts).
// Stored events go to sockets as their logged JSON text; an SSE stream is told there is more and
// reads it from the log itself. Each watcher is tagged with who opened it, so rotating the run token
// closes the streams opened with the old one. A stream whose reader stopped reading is closed.
import type { CallerKind } from "../../api/types";
import type { LoggedEvent } from "./event-log";
import type { SseStream } from "./sse-stream";

/** WebSocket close code when the server ends a stream on purpose (token rotated or revoked, run deleted). */
export const CLOSE_REVOKED = 4001;

export class Fanout {
  private readonly streams = new Map<SseStream, CallerKind>();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly now: () => number = () => Date.now(),
  ) {}

  addStream(stream: SseStream, kind: CallerKind): void {
    this.streams.set(stream, kind);
  }

  /** The stream ended (its reader left, or it was closed): it is forgotten. */
  dropStream(stream: SseStream): void {
    this.streams.delete(stream);
  }

  /** Closes the watchers opened by `kind` (every watcher when undefined), telling sockets why. */
  close(reason: string, kind?: CallerKind): void {
    for (const socket of kind === undefined ? this.ctx.getWebSockets() : this.ctx.getWebSockets(kind)) {
      try {
        socket.close(CLOSE_REVOKED, reason);
      } catch {
        // Already closing.
      }
    }
    for (const [stream, opener] of [...this.streams]) {
      if (kind !== undefined && opener !== kind) continue;
      this.streams.delete(stream);
      stream.close();
    }
  }

  /** Stored events, in seq order. */
  sendLogged(events: LoggedEvent[]): void {
    if (events.length === 0) return;
    for (const socket of this.ctx.getWebSockets()) {
      for (const event of events) this.trySend(socket, event.text);
    }
    for (const stream of this.streams.keys()) stream.notify();
    this.closeStalled();
  }

  /** A live-only event (text deltas): no seq, never stored; made into text only when someone watches. */
  sendLive(event: object): void {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0 && this.streams.size === 0) return;
    const text = JSON.stringify(event);
    for (const socket of sockets) this.trySend(socket, text);
    for (const stream of this.streams.keys()) stream.pushLive(text);
    this.closeStalled();
  }

  get watchers(): number {
    return this.ctx.getWebSockets().length + this.streams.size;
  }

  /** Streams whose reader has not read for a while though something waits: closed, so they hold nothing. */
  private closeStalled(): void {
    const now = this.now();
    for (const stream of [...this.streams.keys()]) {
      if (!stream.stalled(now)) continue;
      this.streams.delete(stream);
      stream.close();
    }
  }

  private trySend(socket: WebSocket, text: string): void {
    try {
      socket.send(text);
    } catch {
      // A socket that is closing: its close handler cleans up.
    }
  }
}
