// The reconnect loop shared by a run's events (./events.ts) and an inbox (./inbox.ts): it connects
// with `after=<last seen seq>`, yields each event once in seq order, and after a dropped connection
// waits (doubling, cut short by an abort) and connects again. A connection that never opened is
// followed by an HTTP probe with the same credentials: a refusal ends the iteration with its error,
// a lost network is tried again.
import { isFatal, reconnectDelay, sleep } from "./backoff.ts";
import type { Connection } from "../connection/connection.ts";

export type ReconnectOptions = {
  /** Wait before the first reconnect (default 250 ms); doubles per failed try up to maxDelayMs. */
  minDelayMs?: number;
  /** Longest wait between tries (default 5 s). */
  maxDelayMs?: number;
};

export type ReconnectingStream<E> = {
  connect: (after: number) => Connection;
  /** An HTTP request with the same credentials; it throws the refusal when there is one. */
  probe: () => Promise<unknown>;
  reconnect: ReconnectOptions;
  /** The frame as an event, or undefined for a frame that is not one (skipped). */
  read: (frame: unknown) => E | undefined;
  /** The event's seq; undefined for a live-only event (a text delta), which never moves `after`. */
  seqOf: (event: E) => number | undefined;
  /** True for the event after which the iteration ends. */
  isLast: (event: E) => boolean;
};

export async function* reconnecting<E>(stream: ReconnectingStream<E>, after: number, signal: AbortSignal | undefined): AsyncGenerator<E, void, undefined> {
  const minDelay = stream.reconnect.minDelayMs ?? 250;
  const maxDelay = stream.reconnect.maxDelayMs ?? 5_000;
  // A function, not a narrowed property: the signal may abort while this generator waits.
  const aborted = () => signal?.aborted === true;
  let lastSeq = after;
  let failures = 0;
  while (!aborted()) {
    const connection = stream.connect(lastSeq);
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
        const event = stream.read(result.value);
        if (event === undefined) continue;
        const seq = stream.seqOf(event);
        if (seq !== undefined) {
          // The server sends only seq > after; this also holds against a misbehaving proxy.
          if (seq <= lastSeq) continue;
          lastSeq = seq;
        }
        yield event;
        if (stream.isLast(event)) return;
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
        await stream.probe();
      } catch (error) {
        if (isFatal(error)) throw error;
      }
    }
    await sleep(reconnectDelay(failures, minDelay, maxDelay), signal);
  }
}
