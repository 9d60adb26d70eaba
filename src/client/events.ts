// A run's events as an async iterable that survives dropped connections: it reconnects by itself
// with `after=<last seen seq>`, so the server sends exactly what was missed and every stored
// event is yielded once, in seq order. Text deltas are live only: those sent while no connection
// was open are gone, but each step's `model` event carries its whole text.
import { isFatal, reconnectDelay, sleep } from "./backoff";
import type { Connection } from "./connection";
import type { RunView, StreamEvent } from "./types";

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

export type ReconnectOptions = {
  /** Wait before the first reconnect (default 250 ms); doubles per failed try up to maxDelayMs. */
  minDelayMs?: number;
  /** Longest wait between tries (default 5 s). */
  maxDelayMs?: number;
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
  const minDelay = deps.reconnect.minDelayMs ?? 250;
  const maxDelay = deps.reconnect.maxDelayMs ?? 5_000;

  // Asked over HTTP first: a refused token or an unknown run fails here with its real status
  // (a browser's WebSocket cannot see it), and it tells which `end` event closes the iteration.
  const start = await deps.getRun();
  const ended = ENDED.has(start.status);
  if (!follow && ended && start.lastSeq <= after) return;
  // The end event that closes the iteration: an ended run's own (its newest event); for a run
  // still going, the next one (an older end may be in the history of a continued run).
  const closingEnd = ended ? start.lastSeq : start.lastSeq + 1;

  // A function, not a narrowed property: the signal may abort while this generator waits.
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
        const event = asStreamEvent(result.value);
        if (event === undefined) continue;
        if (event.seq !== undefined) {
          // The server sends only seq > after; this also holds against a misbehaving proxy.
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
        }
        yield event;
        if (!follow && event.type === "end" && event.seq >= closingEnd) return;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      connection.close();
    }
    if (aborted()) return;
    if (isFatal(failure)) throw failure;
    failures = connection.opened ? 1 : failures + 1;
    if (!connection.opened) {
      // Refused, or no network? Only HTTP can tell; a refusal ends the iteration with its error.
      try {
        await deps.getRun();
      } catch (error) {
        if (isFatal(error)) throw error;
      }
    }
    await sleep(reconnectDelay(failures, minDelay, maxDelay), signal);
  }
}
