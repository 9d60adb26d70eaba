// An experiment's events (GET /v1/experiments/{id}/events) as an async iterable, as a run's are
// (./events.ts): stored events after `after`, then live ones, reconnecting by itself with
// `after=<last seen seq>` so each is yielded once in seq order; it ends after `experiment-ended`.
import type { Connection } from "../connection/connection.ts";
import { reconnecting, type ReconnectOptions } from "../reconnect/reconnecting.ts";
import type { ExperimentView, StoredExperimentEvent } from "../types.ts";

export type ExperimentEventsOptions = {
  /** Yield only events with seq > after (default 0: the whole history first). */
  after?: number;
  /** Stops the iteration (it then ends quietly) and closes the connection. */
  signal?: AbortSignal;
};

export type ExperimentEventDeps = {
  getExperiment: () => Promise<ExperimentView>;
  connect: (after: number) => Connection;
  reconnect: ReconnectOptions;
};

/** A light check of a frame: the client trusts the server's shapes but not the wire. */
function asExperimentEvent(frame: unknown): StoredExperimentEvent | undefined {
  if (typeof frame !== "object" || frame === null) return undefined;
  const { type, seq } = frame as { type?: unknown; seq?: unknown };
  if (typeof type !== "string" || typeof seq !== "number" || !Number.isInteger(seq)) return undefined;
  return frame as StoredExperimentEvent;
}

export async function* experimentEvents(deps: ExperimentEventDeps, options: ExperimentEventsOptions = {}): AsyncGenerator<StoredExperimentEvent, void, undefined> {
  const { after = 0, signal } = options;
  // Asked over HTTP first: a refused token or an unknown experiment fails here with its real status.
  const start = await deps.getExperiment();
  if (start.status !== "running" && start.lastSeq <= after) return;
  yield* reconnecting(
    {
      connect: deps.connect,
      probe: deps.getExperiment,
      reconnect: deps.reconnect,
      read: asExperimentEvent,
      seqOf: (event) => event.seq,
      isLast: (event) => event.type === "experiment-ended",
    },
    after,
    signal,
  );
}
