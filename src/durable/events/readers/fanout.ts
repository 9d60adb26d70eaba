// Sends events to every watcher of a run (or an inbox): hibernatable WebSockets (ctx.getWebSockets)
// and SSE streams (held in memory while open, each read at its reader's pace: sse-stream.ts).
// Stored events go to sockets as their logged JSON text; an SSE stream is told there is more and
// reads it from the log itself. Each watcher is tagged with who opened it, so rotating the run token
// closes the streams opened with the old one; one opened with a user token carries that token
// (watcher-tokens.ts: a socket as its attachment), so it closes when the token is revoked, expires
// or its key stops being accepted. A stream whose reader stopped reading is closed.
import type { CallerKind, WatcherToken } from "../../../api/types";
import type { LoggedEvent } from "../log/event-log";
import type { SseStream } from "./sse-stream";
import { tokenEnded } from "./watcher-tokens";
import { StepText } from "../log/step-text";

/** WebSocket close code when the server ends a stream on purpose (token rotated or revoked, run deleted). */
export const CLOSE_REVOKED = 4001;

type StreamEntry = { kind: CallerKind; token?: WatcherToken };

/** The user token a socket was opened with (its attachment), if any. */
function socketToken(socket: WebSocket): WatcherToken | undefined {
  try {
    const attached = socket.deserializeAttachment() as WatcherToken | null;
    return attached ?? undefined;
  } catch {
    return undefined;
  }
}

function closeSocket(socket: WebSocket, reason: string): void {
  try {
    socket.close(CLOSE_REVOKED, reason);
  } catch {
    // Already closing.
  }
}

export class Fanout {
  private readonly streams = new Map<SseStream, StreamEntry>();
  /** What the model call in flight has streamed so far, for a watcher that asks for it when it connects. */
  readonly stepText = new StepText();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly now: () => number = () => Date.now(),
  ) {}

  addStream(stream: SseStream, kind: CallerKind, token?: WatcherToken): void {
    this.streams.set(stream, token === undefined ? { kind } : { kind, token });
  }

  /** Accepts a hibernatable socket, tagged with who opened it and, for a user token, carrying it. */
  acceptSocket(socket: WebSocket, kind: CallerKind, token?: WatcherToken): void {
    this.ctx.acceptWebSocket(socket, token?.id === undefined ? [kind] : [kind, `token:${token.id}`]);
    if (token !== undefined) socket.serializeAttachment(token);
  }

  /** The user tokens of every open watcher. */
  tokens(): WatcherToken[] {
    const found: WatcherToken[] = [];
    for (const socket of this.ctx.getWebSockets()) {
      const token = socketToken(socket);
      if (token !== undefined) found.push(token);
    }
    for (const entry of this.streams.values()) if (entry.token !== undefined) found.push(entry.token);
    return found;
  }

  /** Closes the watchers of user token `id` (it was revoked). */
  closeToken(id: string): void {
    for (const socket of this.ctx.getWebSockets(`token:${id}`)) closeSocket(socket, "The user token was revoked.");
    for (const [stream, entry] of [...this.streams]) {
      if (entry.token?.id !== id) continue;
      this.streams.delete(stream);
      stream.close();
    }
  }

  /** Closes the watchers whose user token expired, or whose key is not among `acceptedKeys`. */
  closeEnded(now: number, acceptedKeys: readonly string[]): void {
    for (const socket of this.ctx.getWebSockets()) {
      const token = socketToken(socket);
      if (token !== undefined && tokenEnded(token, now, acceptedKeys)) closeSocket(socket, "The user token expired, or its key is no longer accepted.");
    }
    for (const [stream, entry] of [...this.streams]) {
      if (entry.token === undefined || !tokenEnded(entry.token, now, acceptedKeys)) continue;
      this.streams.delete(stream);
      stream.close();
    }
  }

  /** The stream ended (its reader left, or it was closed): it is forgotten. */
  dropStream(stream: SseStream): void {
    this.streams.delete(stream);
  }

  /** Closes the watchers opened by `kind` (every watcher when undefined), telling sockets why. */
  close(reason: string, kind?: CallerKind): void {
    for (const socket of kind === undefined ? this.ctx.getWebSockets() : this.ctx.getWebSockets(kind)) closeSocket(socket, reason);
    for (const [stream, entry] of [...this.streams]) {
      if (kind !== undefined && entry.kind !== kind) continue;
      this.streams.delete(stream);
      stream.close();
    }
  }

  /** Stored events, in seq order. */
  sendLogged(events: LoggedEvent[]): void {
    if (events.length === 0) return;
    this.stepText.noteLogged(events.map((event) => event.text));
    for (const socket of this.ctx.getWebSockets()) {
      for (const event of events) this.trySend(socket, event.text);
    }
    for (const stream of this.streams.keys()) stream.notify();
    this.closeStalled();
  }

  /**
   * A live-only event (text deltas): no seq, never stored; made into text only when someone watches.
   * `after`: the seq it follows, when events stored after it happened are in the log already (held-events.ts).
   */
  sendLive(event: object, after?: number): void {
    // Kept whether or not anyone watches now: the next watcher may ask for it.
    this.stepText.noteLive(event);
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0 && this.streams.size === 0) return;
    const text = JSON.stringify(event);
    for (const socket of sockets) this.trySend(socket, text);
    for (const stream of this.streams.keys()) stream.pushLive(text, after);
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
