// One connection to a run's event stream: frames (parsed JSON) until it closes. A connection
// never reconnects itself; ./events.ts does that.
import type { Channel } from "./channel.ts";

export interface Connection {
  /** The next frame; done when the connection closed; rejects with a RatchetError when it failed. */
  next(): Promise<IteratorResult<unknown, undefined>>;
  /** True once the server accepted the connection. */
  readonly opened: boolean;
  close(): void;
}

/** Queues one frame's text as parsed JSON; text that is not JSON is not an event and is dropped. */
export function pushFrame(channel: Channel<unknown>, text: string): void {
  try {
    channel.push(JSON.parse(text));
  } catch {
    // Not JSON: not an event.
  }
}

/** The connection reading `channel`; close() ends it and then closes the transport. */
export function connectionOf(channel: Channel<unknown>, isOpen: () => boolean, closeTransport: () => void): Connection {
  return {
    next: () => channel.next(),
    get opened() {
      return isOpen();
    },
    close() {
      channel.end();
      closeTransport();
    },
  };
}
