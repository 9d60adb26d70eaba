// The client's transport inside workerd: fetch and WebSocket on top of SELF.fetch, plus the
// levers the tests pull: hold new event connections at a gate, and drop open ones from the
// client's side (the server's side is closed through the run object, see dropServerSockets).
import { SELF, runInDurableObject } from "cloudflare:test";
import type { FetchLike, WebSocketConstructorLike, WebSocketEventLike, WebSocketLike } from "../../src/client";
import { stubFor } from "./runs";

export const BASE = "https://ratchet.test";

export type Lab = {
  fetch: FetchLike;
  WebSocket: WebSocketConstructorLike;
  /** Every event connection the client opened (WebSocket or SSE), in order. */
  connections: string[];
  /** New event connections wait until release(). */
  hold(): void;
  release(): void;
  /** Ends every open event connection as a lost network would (no close handshake). */
  dropClientSide(): void;
};

type Listener = (event: WebSocketEventLike) => void;

export function createLab(): Lab {
  const connections: string[] = [];
  const drops = new Set<() => void>();
  let gate: Promise<void> | undefined;
  let openGate: (() => void) | undefined;

  const fetch: FetchLike = async (url, init) => {
    const sse = init.headers.Accept === "text/event-stream";
    if (!sse) return SELF.fetch(url, init);
    connections.push(url);
    changed();
    // A drop before the answer arrives fails the fetch, as a lost network does.
    let dropPending = () => {};
    const lost = new Promise<never>((_resolve, reject) => (dropPending = () => reject(new TypeError("network connection lost"))));
    drops.add(dropPending);
    let response: Response;
    try {
      response = await Promise.race([gate, lost]).then(() => Promise.race([SELF.fetch(url, init), lost]));
    } finally {
      drops.delete(dropPending);
    }
    if (response.body === null) return response;
    const reader = response.body.getReader();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const drop = () => {
      drops.delete(drop);
      try {
        controller.error(new TypeError("network connection lost"));
      } catch {
        // Already closed.
      }
      void reader.cancel().catch(() => undefined);
    };
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      pull: async (c) => {
        const { done, value } = await reader.read();
        try {
          if (done) c.close();
          else c.enqueue(value);
        } catch {
          // Dropped meanwhile.
        }
      },
      cancel: (reason) => {
        drops.delete(drop);
        return reader.cancel(reason);
      },
    });
    drops.add(drop);
    return new Response(body, { status: response.status, headers: response.headers });
  };

  class SelfWebSocket implements WebSocketLike {
    private readonly listeners = new Map<string, Listener[]>();
    private socket: WebSocket | undefined;
    private closed = false;

    constructor(url: string) {
      connections.push(url);
    changed();
      drops.add(this.drop);
      void this.connect(url);
    }

    addEventListener(type: "open" | "message" | "close" | "error", listener: Listener): void {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }

    close(code = 1000, reason = ""): void {
      if (this.closed) return;
      this.closed = true;
      drops.delete(this.drop);
      try {
        this.socket?.close(code, reason);
      } catch {
        // Already closed.
      }
    }

    /** Before or after the open: the client sees an abnormal close (1006), as on a lost network. */
    private readonly drop = () => {
      this.close(1000, "dropped");
      this.emit("close", { code: 1006, reason: "" });
    };

    private emit(type: string, event: WebSocketEventLike): void {
      for (const listener of this.listeners.get(type) ?? []) listener(event);
    }

    private async connect(url: string): Promise<void> {
      await gate;
      if (this.closed) return;
      const response = await SELF.fetch(url.replace(/^ws/, "http"), { headers: { Upgrade: "websocket" } });
      const socket = response.webSocket;
      if (response.status !== 101 || socket === null) {
        drops.delete(this.drop);
        this.emit("error", {});
        this.emit("close", { code: 1006, reason: "" });
        return;
      }
      socket.accept();
      if (this.closed) return socket.close(1000, "closed before open");
      this.socket = socket;
      socket.addEventListener("message", (event) => this.emit("message", { data: event.data }));
      socket.addEventListener("close", (event) => {
        this.closed = true;
        drops.delete(this.drop);
        this.emit("close", { code: event.code, reason: event.reason });
      });
      socket.addEventListener("error", () => this.emit("error", {}));
      this.emit("open", {});
    }
  }

  return {
    fetch,
    WebSocket: SelfWebSocket,
    connections,
    hold() {
      gate ??= new Promise((resolve) => (openGate = resolve));
    },
    release() {
      openGate?.();
      gate = undefined;
    },
    dropClientSide() {
      for (const drop of [...drops]) drop();
    },
  };
}

/** Closes every socket of the run from the server's side, as a restart of the object would. */
export async function dropServerSockets(runId: string): Promise<number> {
  return runInDurableObject(stubFor(runId), (_instance, state) => {
    const sockets = state.getWebSockets();
    for (const socket of sockets) socket.close(1012, "Service restart");
    return sockets.length;
  });
}

let wakers: (() => void)[] = [];

/** Something `until` may wait on changed (an event collected, a connection opened): checks again. */
export function changed(): void {
  const waking = wakers;
  wakers = [];
  for (const wake of waking) wake();
}

/**
 * Waits until `check` holds, checking again on every `changed()` (no polling); fails after
 * `limitMs` so a lost event is a failure, not a hang.
 */
export async function until(check: () => boolean, what = "condition", limitMs = 10_000): Promise<void> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    changed();
  }, limitMs);
  try {
    while (!check()) {
      if (timedOut) throw new Error(`Timed out waiting for ${what}.`);
      await new Promise<void>((resolve) => wakers.push(resolve));
    }
  } finally {
    clearTimeout(timer);
  }
}
