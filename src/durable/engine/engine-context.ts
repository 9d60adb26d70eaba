// What the run engine's functions share: the object's state and bindings, the watchers, the fetch
// that tools use, the MCP connections, the clock, the events and step rows the slice in progress
// holds, and (for tests) how many new steps one slice may run.
import type { McpConnections } from "../../tools/mcp/mcp-connections";
import type { Holds } from "../../providers";
import type { Fanout } from "../events/readers/fanout";
import type { HeldEvents } from "../events/log/held-events";
import type { StepRows } from "./journal/step-rows";
import type { ModelCalls } from "./incoming/model-calls";

export type EngineContext = {
  ctx: DurableObjectState;
  env: Env;
  fanout: Fanout;
  fetch: typeof fetch;
  /** Milliseconds since the epoch (tests may move it). */
  now: () => number;
  /** New steps per slice (tests set it low to stop a run between any two steps). */
  sliceSteps?: number;
  /** The run's MCP connections, kept while the object lives (docs/mcp.md); a new object connects anew. */
  mcp?: McpConnections;
  /** How long an MCP tool call may take (default 30 s; tests set it low). */
  toolTimeoutMs?: number;
  /** The model call in flight, which a message may interrupt (the run object's; tests may leave it out). */
  modelCalls?: ModelCalls;
  /** The scripted turns held in this instance, which a release wakes (provider/scripted-holds.ts; the run object's). */
  holds?: Holds;
  /** The events the slice in progress holds for its next commit (events/held-events.ts); set by the slice while it runs. */
  held?: HeldEvents;
  /** The step rows the slice in progress has not written yet (journal/step-rows.ts); set by the slice while it runs. */
  stepRows?: StepRows;
  /** How the provider waits between retries (tests record the waits instead of sleeping). */
  retrySleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Runs with no loop detectors at all, which no body can ask for (every run has the defaults):
   * the "off" of bench:guardrails' issue-50 case. Never set by the run object.
   */
  withoutLoopGuards?: true;
};
