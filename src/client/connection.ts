// One connection to a run's event stream: frames (parsed JSON) until it closes. A connection
// never reconnects itself; ./events.ts does that.
export interface Connection {
  /** The next frame; done when the connection closed; rejects with a RatchetError when it failed. */
  next(): Promise<IteratorResult<unknown, undefined>>;
  /** True once the server accepted the connection. */
  readonly opened: boolean;
  close(): void;
}
