// What built-in and HTTP tools need from the run that uses them, injected so that tests can give
// a fake clock, a local server and a counted journal.
import type { ToolOutput } from "../loop/types";
import type { ChildEnd } from "../api/child-runs";
import type { RunTemplate } from "../api/types";

/** Where an async tool sends its result: a URL for this one call, and a token good for it only. */
export type Callback = { url: string; token: string };

/** An async call's result as the run holds it: there, past its deadline (the call is closed), or not yet. */
export type Settled = { kind: "result"; output: ToolOutput } | { kind: "expired" } | { kind: "pending" };

/**
 * The run's record of its async HTTP tool calls, by the call's start step key. The run keeps the
 * results that tool servers send to the callbacks, so a wait only reads.
 */
export type AsyncCalls = {
  /**
   * Records the call before its start is sent, its deadline `timeoutSeconds` from now; a resend
   * (the start was in flight at a crash) keeps the first record. The callback to send, which is
   * the same on every send, or why the call cannot be made.
   */
  register(call: { key: string; callId: string; name: string; timeoutSeconds: number }): Promise<{ ok: true; callback: Callback } | { ok: false; problem: string }>;
  /** The tool server took the job (202): the run lists the call as pending and logs tool-started. */
  accepted(key: string): void;
  /** The start was answered at once (a result or a failure): a callback for it is refused from now on. */
  close(key: string): void;
  /** The call's result once it came; past the deadline "expired" (and the call is closed); else "pending". */
  settle(key: string): Settled;
};

/** A start: the child (made now or found again), or why it was not run ("budget", "depth", …). */
export type ChildStart = { ok: true; childId: string } | { ok: false; reason: string };

export type ChildSettled = { kind: "pending" } | { kind: "ended"; end: ChildEnd } | { kind: "unknown" };

/** The run's record of its children, by the call's start step key (what the run object gives agent tools). */
export type ChildRuns = {
  /** Starts the child of the call at `key` exactly once (or finds it again); its first user message is `task`. */
  start(call: { key: string; callId: string; name: string; task: string; template: RunTemplate }): Promise<ChildStart>;
  /** The child's end once it reported it, else "pending". */
  settle(key: string): ChildSettled;
};

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
  /** The `traceparent` an HTTP tool request carries for the call at `stepKey`: its execute_tool span, so the tool server's spans join the run's trace. */
  traceparent?: (stepKey: string) => string;
  /** How long an HTTP tool may take to answer (default 30 s); for an async tool, to take the job. */
  timeoutMs?: number;
  /** For async HTTP tools; without it they give the model an error result and send nothing. */
  asyncCalls?: AsyncCalls;
  /** For agent tools (child runs); without it they give the model an error result and start nothing. */
  children?: ChildRuns;
};
