// A tool whose result is not there yet (an outside job that answers later): its `wait` throws
// ToolPending instead of blocking. The loop passes it through unchanged — no step is stored and no
// stop is emitted — so the caller can put the run aside and run the loop again when the result
// has arrived. The replay then repeats nothing that finished and waits where it stopped.
export class ToolPending extends Error {
  /** What the wait waits on, for the caller that keeps the results (the HTTP adapter: the call's start step key). */
  readonly key: string;

  constructor(key: string) {
    super(`No result yet for ${key}.`);
    this.name = "ToolPending";
    this.key = key;
  }
}
