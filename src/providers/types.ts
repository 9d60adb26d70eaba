import type { AssistantMessage, Generate, StopReason, TokenPrices, ToolCall, Usage } from "../loop/types";

/** A model provider: one `generate` that the loop calls for every model step, and what it knows of its models. */
export type Provider = {
  name: "anthropic" | "openai" | "scripted";
  generate: Generate;
  /** USD per token of `model`, when the provider prices its calls from a table (the budget ceiling uses it); undefined for a model with no known price. */
  prices?: (model: string) => TokenPrices | undefined;
  /** The context window of `model`, in tokens. */
  contextWindow: (model: string) => number;
  /** Whether the provider compacts the history itself (the request's `compaction`). */
  nativeCompaction: boolean;
};

/** One streamed answer, assembled (anthropic-stream.ts, openai-stream.ts). */
export type AssembledAnswer = {
  message: AssistantMessage;
  usage: Usage;
  stopReason: StopReason;
  /** A cost the answer reported itself (a gateway's `usage.cost`, USD), if any. */
  reportedCostUsd?: number;
  /** The server tool calls of the answer (server_tool_use blocks), in order. */
  providerToolCalls?: ToolCall[];
};
