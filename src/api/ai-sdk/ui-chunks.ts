// The UI message stream chunks the chat routes send, and the UIMessage shape of the history: the
// subset of the AI SDK's own types (uiMessageChunkSchema, UIMessage) that Ratchet emits.

export type UIChunk =
  | { type: "start"; messageId: string; messageMetadata?: unknown }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "reset-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; providerExecuted?: boolean }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: `data-ratchet-${string}`; id?: string; data: unknown }
  | { type: "message-metadata"; messageMetadata: unknown }
  | { type: "finish"; finishReason?: "stop" | "content-filter" | "tool-calls" | "error" | "other"; messageMetadata?: unknown }
  | { type: "error"; errorText: string }
  | { type: "abort" };

export type UIToolPart = {
  type: `tool-${string}`;
  toolCallId: string;
  state: "input-available" | "output-available" | "output-error" | "output-denied" | "approval-requested";
  input: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string };
};

export type UIPart =
  | { type: "text"; text: string; state?: "done" }
  | { type: "step-start" }
  | { type: "file"; mediaType: string; url: string }
  | { type: `data-ratchet-${string}`; id?: string; data: unknown }
  | UIToolPart;

export type UIMessage = { id: string; role: "user" | "assistant"; parts: UIPart[]; metadata?: unknown };
