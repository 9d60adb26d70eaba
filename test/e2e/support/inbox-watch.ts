// A WebSocket watcher of one subject's inbox from Node (the `ws` package), for end-to-end tests and
// benchmarks. It records every inbox event with its arrival time and, if asked, reconnects after a
// close with after=<last seq>, as a client of the API should.
import WebSocket from "ws";
import { changes } from "./changes";

export type InboxFrame = { seq: number; at: string; type: string; run: { id: string; status: string; version: number; updatedAt: string; [field: string]: unknown }; callId?: string };

export type InboxWatch = {
  events: (InboxFrame & { arrivedAt: number })[];
  duplicates: number[];
  gaps: { after: number; got: number }[];
  connections: number;
  lastSeq: () => number;
  /** Resolves once the socket is open (the first time). */
  opened: Promise<void>;
  /** Resolves once `check()` holds, checked again on every event; fails after `timeoutMs`. */
  until: (check: () => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  close: () => void;
};

export function watchInbox(options: { base: string; token: string; reconnect?: boolean; reconnectDelayMs?: number }): InboxWatch {
  let last = 0;
  let stopped = false;
  let socket: WebSocket | undefined;
  let markOpen!: () => void;
  const arrivals = changes();
  const watch: InboxWatch = {
    events: [],
    duplicates: [],
    gaps: [],
    connections: 0,
    lastSeq: () => last,
    opened: new Promise((resolve) => (markOpen = resolve)),
    until: arrivals.until,
    close: () => {
      stopped = true;
      socket?.terminate();
    },
  };
  const connect = () => {
    if (stopped) return;
    const ws = new WebSocket(`${options.base.replace(/^http/, "ws")}/v1/inbox/events?after=${last}`, { headers: { Authorization: `Bearer ${options.token}` }, perMessageDeflate: false });
    socket = ws;
    ws.on("open", () => {
      watch.connections++;
      markOpen();
    });
    ws.on("message", (data: WebSocket.RawData) => {
      const arrivedAt = Date.now();
      const frame = JSON.parse(data.toString()) as Partial<InboxFrame>;
      if (typeof frame.seq !== "number") return;
      if (frame.seq <= last) watch.duplicates.push(frame.seq);
      else if (frame.seq !== last + 1) watch.gaps.push({ after: last, got: frame.seq });
      last = Math.max(last, frame.seq);
      watch.events.push({ ...(frame as InboxFrame), arrivedAt });
      arrivals.changed();
    });
    ws.on("error", () => {
      // "close" follows.
    });
    ws.on("close", () => {
      if (!stopped && options.reconnect === true) setTimeout(connect, options.reconnectDelayMs ?? 250);
    });
  };
  connect();
  return watch;
}

/** A user token for `subject`, minted with the deployment token. */
export async function mintUserToken(base: string, deployToken: string, subject: string, ttlSeconds = 3600): Promise<string> {
  const response = await fetch(`${base}/v1/tokens`, { method: "POST", headers: { Authorization: `Bearer ${deployToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ subject, ttlSeconds }) });
  if (response.status !== 201) throw new Error(`mint: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

export type ListedRun = { id: string; status: string; stoppedBy?: string; steps: number; spentUsd: number; createdAt: string; updatedAt: string; version: number; waiting?: unknown; metadata?: unknown; subject?: string };

/** Every run of the token's subject (or `subject` with the deployment token), following the cursors; with each page's time. */
export async function listAllRuns(base: string, token: string, options: { limit?: number; subject?: string; status?: string } = {}): Promise<{ runs: ListedRun[]; pageMs: number[] }> {
  const runs: ListedRun[] = [];
  const pageMs: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const query = new URLSearchParams({ limit: String(options.limit ?? 50) });
    if (options.subject !== undefined) query.set("subject", options.subject);
    if (options.status !== undefined) query.set("status", options.status);
    if (cursor !== undefined) query.set("cursor", cursor);
    const started = performance.now();
    const response = await fetch(`${base}/v1/runs?${query}`, { headers: { Authorization: `Bearer ${token}` } });
    const text = await response.text();
    pageMs.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`list: ${response.status} ${text}`);
    const body = JSON.parse(text) as { runs: ListedRun[]; nextCursor?: string };
    runs.push(...body.runs);
    cursor = body.nextCursor;
    if (cursor === undefined) break;
  }
  return { runs, pageMs };
}
