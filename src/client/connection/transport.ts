// What the client needs from its platform, as narrow structural types: the browser's, React
// Native's and Node's fetch and WebSocket fit them, and so do test doubles built on SELF.fetch.

export type FetchInit = { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal };

export type ByteReader = {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
};

export type FetchAnswer = {
  ok: boolean;
  status: number;
  text(): Promise<string>;
  /** A streamed body (for SSE). React Native's fetch has none: it uses the WebSocket instead. */
  body: { getReader(): ByteReader } | null;
};

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchAnswer>;

/** The fields of open, message, close and error events that the client reads. */
export type WebSocketEventLike = { data?: unknown; code?: number; reason?: string };

export interface WebSocketLike {
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: WebSocketEventLike) => void): void;
  close(code?: number, reason?: string): void;
}

/** The WebSocket class (`globalThis.WebSocket`, `ws`'s, or a test double). */
export type WebSocketConstructorLike = new (url: string) => WebSocketLike;

type Platform = { fetch?: FetchLike; WebSocket?: WebSocketConstructorLike };

function platform(): Platform {
  return globalThis as unknown as Platform;
}

export function defaultFetch(): FetchLike {
  const found = platform().fetch;
  if (found === undefined) throw new Error("No global fetch here: pass `fetch` to createClient.");
  // Bound: a browser's fetch called as a method of another object throws "Illegal invocation".
  return (url, init) => found.call(globalThis, url, init);
}

export function defaultWebSocket(): WebSocketConstructorLike | undefined {
  return platform().WebSocket;
}
