// A run's events as an async iterable that survives dropped connections: it reconnects by itself
// with `after=<last seen seq>`, so the server sends exactly what was missed and every stored
// event is yielded once, in seq order. Text deltas are live only: those sent while no connection
// was open are gone, but each step's `model` event carries its whole text.
import type { Connection } from "../connection/connection.ts";
import { reconnecting, type ReconnectOptions } from "../reconnect/reconnecting.ts";
import type { RunView, StreamEvent } from "../types.ts";

export type { ReconnectOptions };

export type EventsOptions = {
  /** Yield only stored events with seq > after (default 0: the whole history first). */
  after?: number;
  /**
   * false (default): finish after the run's next `end` event, or at once when the run has already
   * ended and nothing after `after` is left. true: keep watching (a finished run may be continued).
   */
  follow?: boolean;
  /** Stops the iteration (it then ends quietly) and closes the connection. */
  signal?: AbortSignal;
};

export type EventSourceDeps = {
  getRun: () => Promise<RunView>;
  connect: (after: number) => Connection;
  reconnect: ReconnectOptions;
};

const ENDED = new Set(["finished", "failed", "cancelled"]);

/** Socket-level frames that are not run events (`pong`, `error` for a bad client frame). */
const NOT_EVENTS = new Set(["pong", "error"]);

/** A light check: the client trusts the server's shapes (the schemas' own types) but not the wire. */
function asStreamEvent(frame: unknown): StreamEvent | undefined {
  if (typeof frame !== "object" || frame === null) return undefined;
  const { type, seq } = frame as { type?: unknown; seq?: unknown };
  if (typeof type !== "string" || NOT_EVENTS.has(type)) return undefined;
  if (seq !== undefined && (typeof seq !== "number" || !Number.isInteger(seq))) return undefined;
  return frame as StreamEvent;
}

export async function* runEvents(deps: EventSourceDeps, options: EventsOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  const { after = 0, follow = false, signal } = options;
  // Asked over HTTP first: a refused token or an unknown run fails here with its real status
  // (a browser's WebSocket cannot see it), and it tells which `end` event closes the iteration.
  const start = await deps.getRun();
  const ended = ENDED.has(start.status);
  if (!follow && ended && start.lastSeq <= after) return;
  // The end event that closes the iteration: an ended run's own (its newest event); for a run
  // still going, the next one (an older end may be in the history of a continued run).
  const closingEnd = ended ? start.lastSeq : start.lastSeq + 1;
  yield* reconnecting(
    {
      connect: deps.connect,
      probe: deps.getRun,
      reconnect: deps.reconnect,
      read: asStreamEvent,
      seqOf: (event) => event.seq,
      isLast: (event) => !follow && event.type === "end" && event.seq >= closingEnd,
    },
    after,
    signal,
  );
}
