// A WebSocket watcher of a run's events, for waiting on a step without sleeping.
import type { StoredEvent } from "../../src/api/types";
import type { RunStub } from "./runs";

export type Watcher = {
  frames: Record<string, unknown>[];
  /** Date.now() when each frame arrived, index for index with `frames`. */
  arrivals: number[];
  /** Resolves with the first frame (already received or still to come) that matches. */
  next(match: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  send(frame: unknown): void;
  close(): void;
};

export async function watch(stub: RunStub, after = 0, path = "events"): Promise<Watcher> {
  const response = await stub.fetch(`https://ratchet.test/${path}?after=${after}`, { headers: { Upgrade: "websocket" } });
  const socket = response.webSocket;
  if (socket === null) throw new Error(`no socket: ${response.status}`);
  socket.accept();
  const frames: Record<string, unknown>[] = [];
  const arrivals: number[] = [];
  const waiters: { match: (frame: Record<string, unknown>) => boolean; resolve: (frame: Record<string, unknown>) => void; seen: number }[] = [];
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data)) as Record<string, unknown>;
    frames.push(frame);
    arrivals.push(Date.now());
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(frame)) waiter.resolve(frame);
      else waiters.push(waiter);
    }
  });
  return {
    frames,
    arrivals,
    next: (match) => {
      const found = frames.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve, seen: frames.length }));
    },
    send: (frame) => socket.send(JSON.stringify(frame)),
    close: () => socket.close(),
  };
}

export function isStored(frame: Record<string, unknown>): frame is StoredEvent {
  return typeof frame.seq === "number";
}
