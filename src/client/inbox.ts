// A subject's inbox as an async iterable that survives dropped connections, like a run's events
// (./events.ts): it reconnects by itself with `after=<last seen seq>`, so every inbox event is
// yielded once, in seq order. It never ends on its own: stop it with `signal` (or `break`).
import { isFatal, reconnectDelay, sleep } from "./backoff";
import type { Connection } from "./connection";
import type { ReconnectOptions } from "./events";
import type { InboxEvent } from "./types";

export type InboxOptions = {
  /** Yield only inbox events with seq > after (default 0: every change so far first). */
  after?: number;
  /** Stops the iteration (it then ends quietly) and closes the connection. */
  signal?: AbortSignal;
  /** With the deployment token: whose inbox. A user token's is its own. */
  subject?: string;
};

export type InboxSourceDeps = {
  connect: (after: number) => Connection;
  /** An HTTP request with the same credentials: after a connection that never opened, it tells a refusal from a lost network. */
  probe: () => Promise<unknown>;
  reconnect: ReconnectOptions;
};

const TYPES = new Set(["run-started", "run-waiting", "run-answered", "run-resumed", "run-ended", "run-deleted"]);

/** A light check of the wire: an inbox event has a known type and a whole seq. */
function asInboxEvent(frame: unknown): InboxEvent | undefined {
  if (typeof frame !== "object" || frame === null) return undefined;
  const { type, seq, run } = frame as { type?: unknown; seq?: unknown; run?: unknown };
  if (typeof type !== "string" || !TYPES.has(type) || typeof seq !== "number" || !Number.isInteger(seq) || typeof run !== "object" || run === null) return undefined;
  return frame as InboxEvent;
}

export async function* inboxEvents(deps: InboxSourceDeps, options: InboxOptions = {}): AsyncGenerator<InboxEvent, void, undefined> {
  const { after = 0, signal } = options;
  const minDelay = deps.reconnect.minDelayMs ?? 250;
  const maxDelay = deps.reconnect.maxDelayMs ?? 5_000;
  // A refused token fails here with its real status (a browser's WebSocket cannot see it).
  await deps.probe();
  const aborted = () => signal?.aborted === true;
  let lastSeq = after;
  let failures = 0;
  while (!aborted()) {
    const connection = deps.connect(lastSeq);
    const onAbort = () => connection.close();
    signal?.addEventListener("abort", onAbort);
    let failure: unknown;
    try {
      for (;;) {
        let result: IteratorResult<unknown, undefined>;
        try {
          result = await connection.next();
        } catch (error) {
          failure = error;
          break;
        }
        if (result.done) break;
        const event = asInboxEvent(result.value);
        if (event === undefined || event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        yield event;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      connection.close();
    }
    if (aborted()) return;
    if (isFatal(failure)) throw failure;
    failures = connection.opened ? 1 : failures + 1;
    if (!connection.opened) {
      try {
        await deps.probe();
      } catch (error) {
        if (isFatal(error)) throw error;
      }
    }
    await sleep(reconnectDelay(failures, minDelay, maxDelay), signal);
  }
}
