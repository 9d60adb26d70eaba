// What built-in and HTTP tools need from the run that uses them, injected so that tests can give
// a fake clock, a local server and a counted journal.
export type ToolDeps = {
  runId: string;
  /** The Idempotency-Key an HTTP tool call sends: `<runId>/<step key>`, the same on every resend. */
  idempotencyKey: (stepKey: string) => string;
  fetch: typeof fetch;
  /** Entries of HTTP_TOOL_ALLOW (see parseAllowList). */
  allowHosts: string[];
  /** The clock: built-in tools read it, and HTTP tool requests carry it as their signing time. */
  now: () => Date;
  /**
   * The secrets HTTP tool requests are signed with, current first (see signingKeysOf): every
   * request carries one signature per key. Empty or invalid: no HTTP tool call is sent.
   */
  signingKeys: readonly string[];
  /**
   * For `once` tools: records that the call at `stepKey` is about to be sent. False when a start
   * was recorded before and no result was stored (the object died mid-call), so sending again
   * could do the work twice.
   */
  beginOnce: (stepKey: string) => Promise<boolean>;
  /** How long an HTTP tool may take to answer (default 30 s). */
  timeoutMs?: number;
};
