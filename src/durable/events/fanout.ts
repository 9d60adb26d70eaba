// Sends events to every watcher of a run: hibernatable WebSockets (ctx.getWebSockets) and SSE
// streams (held in memory while open). Stored events go as their logged JSON text. Each watcher
// is tagged with who opened it, so rotating the run token closes the streams opened with the old one.
import type { CallerKind } from "../../api/types";
import type { LoggedEvent } from "./event-log";

const encoder = new TextEncoder();

export function sseFrame(event: LoggedEvent): Uint8Array {
  return encoder.encode(`id: ${event.seq}\ndata: ${event.text}\n\n`);
}

function sseLiveFrame(text: string): Uint8Array {
  return encoder.encode(`data: ${text}\n\n`);
}

/** WebSocket close code when the server ends a stream on purpose (token rotated, run deleted). */
export const CLOSE_REVOKED = 4001;

export class Fanout {
  private readonly streams = new Map<WritableStreamDefaultWriter<Uint8Array>, CallerKind>();

  constructor(private readonly ctx: DurableObjectState) {}

  addStream(writer: WritableStreamDefaultWriter<Uint8Array>, kind: CallerKind): void {
    this.streams.set(writer, kind);
    writer.closed.then(
      () => this.streams.delete(writer),
      () => this.streams.delete(writer),
    );
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
    for (const [writer, opener] of this.streams) {
      if (kind !== undefined && opener !== kind) continue;
      this.streams.delete(writer);
      writer.close().catch(() => undefined);
    }
  }

  /** Stored events, in seq order. */
  sendLogged(events: LoggedEvent[]): void {
    if (events.length === 0) return;
    for (const socket of this.ctx.getWebSockets()) {
      for (const event of events) this.trySend(socket, event.text);
    }
    for (const writer of this.streams.keys()) for (const event of events) this.tryWrite(writer, sseFrame(event));
  }

  /** A live-only event (text deltas): no seq, never stored; made into text only when someone watches. */
  sendLive(event: object): void {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0 && this.streams.size === 0) return;
    const text = JSON.stringify(event);
    for (const socket of sockets) this.trySend(socket, text);
    for (const writer of this.streams.keys()) this.tryWrite(writer, sseLiveFrame(text));
  }

  get watchers(): number {
    return this.ctx.getWebSockets().length + this.streams.size;
  }

  private trySend(socket: WebSocket, text: string): void {
    try {
      socket.send(text);
    } catch {
      // A socket that is closing: its close handler cleans up.
    }
  }

  private tryWrite(writer: WritableStreamDefaultWriter<Uint8Array>, bytes: Uint8Array): void {
    writer.write(bytes).catch(() => this.streams.delete(writer));
  }
}
