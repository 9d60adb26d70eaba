// The AG-UI 1.0 events this service sends (the protocol's own names and fields: @ag-ui/core's
// schemas check them in the tests; the Worker carries no copy of the protocol's library). Only the
// events a Ratchet run has something to say with are listed.

/** The protocol version this service speaks, declared in RUN_STARTED. */
export const AG_UI_PROTOCOL_VERSION = "1.0";

export type AgUiInterrupt = { id: string; reason: string; message?: string; toolCallId?: string; responseSchema?: Record<string, unknown>; metadata?: Record<string, unknown> };

export type AgUiOutcome = { type: "success"; pendingToolCallIds?: string[] } | { type: "interrupt"; interrupts: AgUiInterrupt[] } | { type: "cancelled" };

export type AgUiEvent =
  | { type: "RUN_STARTED"; threadId: string; runId: string; protocolVersion: typeof AG_UI_PROTOCOL_VERSION; metadata?: Record<string, unknown> }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; outcome: AgUiOutcome; result?: unknown; metadata?: Record<string, unknown> }
  | { type: "RUN_ERROR"; message: string; code?: string }
  | { type: "STEP_STARTED"; stepName: string }
  | { type: "STEP_FINISHED"; stepName: string }
  | { type: "TEXT_MESSAGE_START"; messageId: string; role: "assistant" }
  | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TEXT_MESSAGE_END"; messageId: string }
  | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
  | { type: "TOOL_CALL_END"; toolCallId: string }
  | { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string; role: "tool" }
  | { type: "STATE_SNAPSHOT"; snapshot: Record<string, unknown> }
  | { type: "SUBAGENT_STARTED"; subagentRunId: string; name: string; parentToolCallId?: string }
  | { type: "SUBAGENT_FINISHED"; subagentRunId: string; outcome?: { type: "success" } | { type: "suspended" } }
  | { type: "SUBAGENT_ERROR"; subagentRunId: string; message: string; code?: string }
  | { type: "CUSTOM"; name: string; value: unknown };

/** The names of the custom events (cost, step counters and what AG-UI has no event for). */
export const CUSTOM_EVENTS = {
  cost: "ratchet.cost",
  step: "ratchet.step",
  textReset: "ratchet.text-reset",
  userMessage: "ratchet.user-message",
  compaction: "ratchet.compaction",
  guardrail: "ratchet.guardrail",
  loopGuard: "ratchet.loop-guard",
} as const;
