// The price table and the cost of one answer.
import { describe, expect, it } from "vitest";
import { ANTHROPIC_PRICES, costOf, priceOf } from "../../src/providers/common/prices/prices";

describe("prices", () => {
  it("a model's own row, a dated id by its alias, a test id by prefix", () => {
    expect(priceOf("claude-sonnet-4-5")).toEqual({ input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 });
    expect(priceOf("claude-sonnet-4-5-20250929")).toBe(ANTHROPIC_PRICES["claude-sonnet-4-5"]);
    expect(priceOf("claude-haiku-4-5-20251001")).toBe(ANTHROPIC_PRICES["claude-haiku-4-5"]);
    expect(priceOf("claude-opus-4-1-test-abc")).toBe(ANTHROPIC_PRICES["claude-opus-4-1"]);
    // The longest matching id wins: claude-opus-4-5 over claude-opus-4.
    expect(priceOf("claude-opus-4-5-20251101")).toBe(ANTHROPIC_PRICES["claude-opus-4-5"]);
  });

  it("a model of no known row has no price: not a family's, not Sonnet's", () => {
    expect(priceOf("my-haiku-proxy")).toBeUndefined();
    expect(priceOf("some-other-model")).toBeUndefined();
    expect(priceOf("claude-sonnet-9")).toBeUndefined();
    // A prefix counts only up to a dash: claude-sonnet-45 is not claude-sonnet-4.
    expect(priceOf("claude-sonnet-45")).toBeUndefined();
  });

  it("every row has a cache write above input and a cache read below it", () => {
    for (const [model, price] of Object.entries(ANTHROPIC_PRICES)) {
      expect(price.cacheWrite, model).toBeGreaterThan(price.input);
      expect(price.cacheRead, model).toBeLessThan(price.input);
      expect(price.output, model).toBeGreaterThan(price.input);
    }
  });

  it("cost: uncached input, cache writes, cache reads and output at their rates, per million tokens", () => {
    const price = priceOf("claude-sonnet-4-5")!;
    const usage = { inputTokens: 10_000, outputTokens: 1_000, cachedReadTokens: 6_000, cachedWriteTokens: 3_000 };
    expect(costOf(price, usage)).toBeCloseTo((1_000 * 3 + 3_000 * 3.75 + 6_000 * 0.3 + 1_000 * 15) / 1e6, 12);
    expect(costOf(price, { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0 })).toBe(0);
  });
});
