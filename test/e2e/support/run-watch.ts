// A WebSocket watcher of one run's events from Node (the `ws` package: Node 20 has no global
// WebSocket). It records every frame with its arrival time and, if asked, reconnects after a
// close or a refused connection with after=<last seq seen>, as a client of the API should.
import WebSocket from "ws";
import { changes } from "./changes";

export type StoredFrame = { seq: number; at: string; type: string; [field: string]: unknown };

export type ReceivedEvent = {
  seq: number;
  /** The frame exactly as it arrived (stored events are sent as their logged JSON text). */
  text: string;
  type: string;
  /** Commit time of the event (its `at`), ms since the epoch. */
  committedAt: number;
  arrivedAt: number;
  /** Which connection (1-based) delivered it. */
  connection: number;
  /** True when the event was committed after this connection was asked for (so it came live, not from the backlog). */
  live: boolean;
};

export type RunWatch = {
  events: ReceivedEvent[];
  /** Frames without seq (text deltas, pongs, errors). */
  unstored: Record<string, unknown>[];
  /** Seq numbers at or below one already received, and jumps past the next expected seq. */
  duplicates: number[];
  gaps: { after: number; got: number }[];
  connections: number;
  /** Connection attempts refused or dropped before opening. */
  failedAttempts: number;
  lastSeq: () => number;
  /** Resolves when an `end` event arrives (rejects after the watch's deadline). */
  ended: Promise<void>;
  /** Resolves once `check()` holds, checked again on every frame; fails after `timeoutMs`. */
  until: (check: () => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  send: (frame: unknown) => void;
  close: () => void;
};

export type WatchOptions = {
  base: string;
  id: string;
  token: string;
  after?: number;
  /** Reconnect (after=<last seq>) when the socket closes before `end`. */
  reconnect?: boolean;
  reconnectDelayMs?: number;
  /** Give up (reject `ended`, stop reconnecting) after this long. */
  deadlineMs?: number;
  /** Keep watching after `end` (live events of a continued run). */
  stayAfterEnd?: boolean;
  /** Whose events: a run's (the default) or an experiment's, which streams as a run's does. */
  of?: "runs" | "experiments";
};

export function watchRun(options: WatchOptions): RunWatch {
  const { base, id, token } = options;
  const reconnectDelayMs = options.reconnectDelayMs ?? 250;
  const deadline = Date.now() + (options.deadlineMs ?? 300_000);
  let last = options.after ?? 0;
  let socket: WebSocket | undefined;
  let stopped = false;
  let resolveEnded!: () => void;
  let rejectEnded!: (error: Error) => void;
  const ended = new Promise<void>((resolve, reject) => {
    resolveEnded = resolve;
    rejectEnded = reject;
  });
  ended.catch(() => undefined);
  const frames = changes();
  const watch: RunWatch = {
    events: [],
    unstored: [],
    duplicates: [],
    gaps: [],
    connections: 0,
    failedAttempts: 0,
    lastSeq: () => last,
    ended,
    until: frames.until,
    send: (frame) => socket?.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    close: () => {
      stopped = true;
      clearTimeout(giveUp);
      socket?.terminate();
    },
  };
  const giveUp = setTimeout(() => {
    stopped = true;
    socket?.terminate();
    rejectEnded(new Error(`run ${id}: no end event within the deadline (last seq ${last})`));
  }, Math.max(0, deadline - Date.now()));

  const connect = () => {
    if (stopped) return;
    const url = `${base.replace(/^http/, "ws")}/v1/${options.of ?? "runs"}/${id}/events?after=${last}`;
    const requestedAt = Date.now();
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
    socket = ws;
    let opened = false;
    let connection = 0;
    ws.on("open", () => {
      opened = true;
      connection = ++watch.connections;
    });
    ws.on("message", (data: WebSocket.RawData) => {
      const arrivedAt = Date.now();
      const text = data.toString();
      const frame = JSON.parse(text) as Record<string, unknown>;
      if (typeof frame.seq !== "number") {
        watch.unstored.push(frame);
        frames.changed();
        return;
      }
      const event = frame as StoredFrame;
      if (event.seq <= last) watch.duplicates.push(event.seq);
      else if (event.seq !== last + 1) watch.gaps.push({ after: last, got: event.seq });
      const committedAt = Date.parse(event.at);
      watch.events.push({ seq: event.seq, text, type: event.type, committedAt, arrivedAt, connection, live: committedAt >= requestedAt });
      last = Math.max(last, event.seq);
      frames.changed();
      if (event.type === "end" && options.stayAfterEnd !== true) {
        stopped = true;
        clearTimeout(giveUp);
        resolveEnded();
        ws.close(1000, "done");
      }
    });
    ws.on("error", () => {
      // A refused or dropped connection; "close" follows and decides what next.
    });
    ws.on("close", () => {
      if (!opened) watch.failedAttempts++;
      if (stopped || options.reconnect !== true) {
        if (!stopped) rejectEnded(new Error(`run ${id}: the socket closed before the end (last seq ${last})`));
        return;
      }
      setTimeout(connect, reconnectDelayMs);
    });
  };
  connect();
  return watch;
}
