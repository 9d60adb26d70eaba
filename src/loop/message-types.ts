// The message and tool-call shapes the loop and the HTTP API share (docs/api.md), and the few
// words they report a run with (why a model call or a run stopped, how a history is compacted).
// Types only, no import: the typed client's package (@ratchet/client) ships their declarations.

export type TextPart = { type: "text"; text: string; cache?: true };
export type ImagePart = {
  type: "image";
  mimeType: string;
  hash: string;
  path?: string;
  /** base64 bytes, on input only; the service stores them by hash and drops this field. */
  data?: string;
};
export type ContentPart = TextPart | ImagePart;
export type Content = string | ContentPart[];

export type ToolCall = {
  id: string;
  name: string;
  input: unknown;
  /** A call of an action of a provider-native toolset (the API's toolset_name): `name` is then the action. */
  toolset?: string;
};

export type UserMessage = { role: "user"; content: Content };
export type AssistantMessage = {
  role: "assistant";
  content: Content;
  toolCalls?: ToolCall[];
  /** Provider blocks the loop keeps unchanged (for example thinking blocks with signatures). */
  providerBlocks?: unknown[];
};
export type ToolMessage = { role: "tool"; toolCallId: string; content: Content; isError?: boolean };
export type ChatMessage = UserMessage | AssistantMessage | ToolMessage;

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cachedReadTokens: number;
  cachedWriteTokens: number;
  /** Requests the provider's own tools made (web searches, web fetches), when there were any. */
  serverToolUse?: ServerToolUse;
};

export type ServerToolUse = { webSearchRequests: number; webFetchRequests: number };

export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "pause_turn"
  | "refusal"
  | "stop_sequence"
  /** The provider compacted the history (a compaction block) and paused: the loop continues with no user turn. */
  | "compaction"
  /** The answer ran into the model's context window (it is cut off like at max_tokens). */
  | "model_context_window_exceeded";

/** `loop`: a loop guard stopped the run (docs/guardrails.md). */
/** `guardrail`: a guardrail stopped the run (docs/guardrails.md). */
export type StoppedBy = "done" | "finish-tool" | "asked" | "budget" | "steps" | "cancel" | "refusal" | "loop" | "guardrail";

/**
 * How the history is kept inside the context window. "native": the provider compacts (the
 * request's `compaction`); "summary": the loop runs a summary call as its own step; "auto": the
 * caller picked one of the two (the loop treats it as "summary"); "off": never.
 */
export type CompactionMode = "auto" | "native" | "summary" | "off";

/** How a message sent while a run works goes in: before the next model call (`queue`), or at once, aborting the call in flight (`interrupt`). */
export type MessageMode = "queue" | "interrupt";
