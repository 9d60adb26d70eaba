// A subject's inbox as an async iterable that survives dropped connections, like a run's events
// (./events.ts): it reconnects by itself with `after=<last seen seq>`, so every inbox event is
// yielded once, in seq order. It never ends on its own: stop it with `signal` (or `break`).
// Without `after` it starts from now: the inbox's newest seq as a listing reports it (the state of
// the runs so far is the listing's to tell, not a replay of the log, which is trimmed anyway).
import type { Connection } from "../connection/connection.ts";
import { reconnecting, type ReconnectOptions } from "../reconnect/reconnecting.ts";
import type { InboxEvent } from "../types.ts";

export type InboxOptions = {
  /**
   * Yield only inbox events with seq > after. Default: the newest seq when the iteration starts
   * (changes from then on). Pass a listing's `lastSeq` to follow on from that listing exactly.
   */
  after?: number;
  /** Stops the iteration (it then ends quietly) and closes the connection. */
  signal?: AbortSignal;
  /** With the deployment token: whose inbox. A user token's is its own. */
  subject?: string;
};

export type InboxSourceDeps = {
  connect: (after: number) => Connection;
  /** An HTTP request with the same credentials (a one-run listing): after a connection that never opened, it tells a refusal from a lost network; its lastSeq is where a new iteration starts. */
  probe: () => Promise<{ lastSeq?: number }>;
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
  const { signal } = options;
  // A refused token fails here with its real status (a browser's WebSocket cannot see it).
  const probed = await deps.probe();
  const after = options.after ?? probed.lastSeq ?? 0;
  // An inbox never ends on its own.
  yield* reconnecting({ ...deps, read: asInboxEvent, seqOf: (event) => event.seq, isLast: () => false }, after, signal);
}
