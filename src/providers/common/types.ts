import type { AssistantMessage, Generate, StopReason, TokenPrices, ToolCall, Usage } from "../../loop/types";
import type { PriceTable } from "./prices/prices";
import type { ImageData } from "./request-images";

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

/** What a real provider (one that calls a vendor's API through its SDK) is made with. */
export type VendorProviderOptions = {
  /** Without a key every call fails with a clear, non-retryable error (nothing is sent). */
  apiKey: string | undefined;
  fetch?: typeof fetch;
  /** The bytes of a stored image by hash; undefined when there is none. */
  images: (hash: string) => Promise<ImageData | undefined>;
  /** Waits between attempts; rejects when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
  /** The price table (default the vendor's list prices; the run object lays the PRICES rows over it). */
  prices?: PriceTable;
};
