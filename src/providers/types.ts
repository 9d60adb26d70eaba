import type { Generate, TokenPrices } from "../loop/types";

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
