// Prices, USD per million tokens, for answers that carry no cost of their own: the shape of a
// price and of a table, the lookup (no fallback: a model with no known price has none, and the
// edge refuses a run on it), and the cost of one answer. Anthropic's list prices follow; OpenAI's
// are in openai-prices.ts, and a deployment adds or overrides rows with the PRICES setting.
//
// Source: Anthropic's pricing page, https://platform.claude.com/docs/en/about-claude/pricing
// ("Model pricing": base input, 5m cache writes, cache hits and refreshes, output), and each
// model's overview page under https://platform.claude.com/docs/en/models/ for models newer than
// that table's copy we read. Checked against the pages as of late November 2026 (SDK 1.14.0).
// Rows marked "per third-party price trackers" could not be read on an Anthropic page and were
// taken from trackers that quote it; check them when you touch this file.
//
// Ratchet only writes 5-minute cache entries (it never sends a ttl), so the 1-hour write rate is
// not listed. Batch, fast mode and long-prompt bands are not used by Ratchet and not modelled:
// Haiku 5.5's prices are its band for prompts up to 100,000 tokens.
import type { TokenPrices, Usage } from "../../../loop/types";

export type Price = {
  /** Input tokens that neither read nor wrote the cache. */
  input: number;
  output: number;
  /** Input tokens written to a cache entry (Anthropic's 5-minute write; OpenAI charges none: its input rate). */
  cacheWrite: number;
  /** Input tokens read from the cache (cache hits and refreshes). */
  cacheRead: number;
};

export type PriceTable = Readonly<Record<string, Price>>;

const price = (input: number, output: number, cacheWrite: number, cacheRead: number): Price => ({ input, output, cacheWrite, cacheRead });

/** Keyed by model id; dated ids (claude-sonnet-4-5-20250929) match their alias by prefix. */
export const ANTHROPIC_PRICES: PriceTable = {
  "claude-fable-5-2": price(10, 50, 12.5, 0.25), // per third-party price trackers (same as Fable 5.1)
  "claude-mythos-5-2": price(10, 50, 12.5, 0.25), // per third-party price trackers (same as Mythos 5.1)
  "claude-fable-5-1": price(10, 50, 12.5, 0.25),
  "claude-mythos-5-1": price(10, 50, 12.5, 0.25),
  "claude-fable-5": price(10, 50, 12.5, 1),
  "claude-mythos-5": price(10, 50, 12.5, 1),
  "claude-opus-5-5": price(4, 20, 5, 0.2), // per third-party price trackers
  "claude-opus-5": price(5, 25, 6.25, 0.5),
  "claude-opus-4-8": price(5, 25, 6.25, 0.5),
  "claude-opus-4-7": price(5, 25, 6.25, 0.5),
  "claude-opus-4-6": price(5, 25, 6.25, 0.5),
  "claude-opus-4-5": price(5, 25, 6.25, 0.5),
  "claude-opus-4-1": price(15, 75, 18.75, 1.5),
  "claude-opus-4": price(15, 75, 18.75, 1.5),
  "claude-sonnet-5-5": price(2, 10, 2.5, 0.1), // cache hits cut from $0.20 on 2026-10-07, per third-party price trackers
  "claude-sonnet-5": price(2, 10, 2.5, 0.2),
  "claude-sonnet-4-6": price(3, 15, 3.75, 0.3),
  "claude-sonnet-4-5": price(3, 15, 3.75, 0.3),
  "claude-sonnet-4": price(3, 15, 3.75, 0.3),
  "claude-haiku-5-5": price(0.1, 0.5, 0.125, 0.01), // per third-party price trackers; prompts ≤ 100k tokens
  "claude-haiku-4-5": price(1, 5, 1.25, 0.1),
  "claude-3-5-haiku": price(0.8, 4, 1, 0.08),
  "claude-3-haiku": price(0.25, 1.25, 0.3, 0.03),
};

/**
 * The price of `model` in `table`: its own row, else the longest id it starts with followed by a
 * dash (a dated snapshot such as claude-sonnet-4-5-20250929 or gpt-5-2025-08-07 takes its alias's
 * row), else none. A variant with another price needs a row of its own (its own row wins).
 */
export function priceOf(model: string, table: PriceTable = ANTHROPIC_PRICES): Price | undefined {
  const own = table[model];
  if (own !== undefined) return own;
  const prefix = Object.keys(table)
    .filter((id) => model.startsWith(`${id}-`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix === undefined ? undefined : table[prefix];
}

/**
 * The cost of one answer from its usage. `usage.inputTokens` is the whole prompt (see
 * anthropic-stream.ts), so the uncached part is what the cache neither read nor wrote.
 */
export function costOf(price: Price, usage: Usage): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedReadTokens - usage.cachedWriteTokens);
  return (
    (uncached * price.input + usage.cachedWriteTokens * price.cacheWrite + usage.cachedReadTokens * price.cacheRead + usage.outputTokens * price.output) /
    1_000_000
  );
}

/** The price per token (not per million) of each kind of token the budget ceiling counts. */
export function tokenPrices(price: Price): TokenPrices {
  return { input: price.input / 1_000_000, output: price.output / 1_000_000, cacheWrite: price.cacheWrite / 1_000_000 };
}

/**
 * The provider's own tools, USD per request: web search $10 per 1,000 searches; web fetch has no
 * fee of its own (its pages count as input tokens). Source: Anthropic's pricing page
 * (https://platform.claude.com/docs/en/about-claude/pricing, "Tool use pricing") and the web search
 * and web fetch tool pages, read in late November 2026. Code execution is billed by container time
 * per organisation, which no answer reports: it is not counted.
 */
export const SERVER_TOOL_PRICES = { webSearchRequest: 10 / 1_000, webFetchRequest: 0 } as const;

/** What an answer's server tool requests cost (web searches, web fetches). */
export function serverToolCostOf(usage: Usage): number {
  const use = usage.serverToolUse;
  if (use === undefined) return 0;
  return use.webSearchRequests * SERVER_TOOL_PRICES.webSearchRequest + use.webFetchRequests * SERVER_TOOL_PRICES.webFetchRequest;
}
