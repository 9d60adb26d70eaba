// The fetch the chat transport makes its requests with. A reconnect (the GET of a run's stream)
// whose connection fails is tried again, waiting longer each time, until it connects or the chat
// aborts it (`stop()`): the service may be restarting, and the run goes on without it, so the page
// that resumes after a lost connection catches up by itself once the service answers. A POST is
// never sent twice: it may carry a user message, and a second one would be a second message.
import { reconnectDelay, sleep } from "../reconnect/backoff.ts";
import type { ReconnectOptions } from "../reconnect/reconnecting.ts";

export type FetchFunction = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

function aborted(error: unknown, signal: AbortSignal | null | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === "AbortError");
}

export function reconnectingFetch(fetch: FetchFunction, { minDelayMs = 250, maxDelayMs = 5_000 }: ReconnectOptions = {}): FetchFunction {
  return async (input, init) => {
    if ((init?.method ?? "GET").toUpperCase() !== "GET") return fetch(input, init);
    for (let failures = 1; ; failures++) {
      try {
        return await fetch(input, init);
      } catch (error) {
        // A refusal arrives as a Response, never here: what is caught is a connection that did not
        // open (the platform's TypeError), or the chat's own abort, which ends the tries.
        if (aborted(error, init?.signal)) throw error;
        await sleep(reconnectDelay(failures, minDelayMs, maxDelayMs), init?.signal ?? undefined);
        if (init?.signal?.aborted === true) throw error;
      }
    }
  };
}
