// OpenAI's list prices, USD per million tokens (standard tier, short-context band), for answers
// that carry no cost of their own.
//
// Source: OpenAI's pricing page, https://developers.openai.com/api/docs/pricing (formerly
// https://openai.com/api/pricing/): "Input", "Cached input" and "Output" per 1M tokens, as of
// November 2026 (SDK openai 7.59.0). Models the page no longer lists (the GPT-5.2 and older rows)
// keep the price they were last listed at, from each model's page under
// https://developers.openai.com/api/docs/models/. Rows marked "per third-party price trackers"
// could not be read on an OpenAI page and were taken from trackers that quote OpenAI's
// announcement; check them when you touch this file.
//
// OpenAI caches prompt prefixes by itself and charges nothing to write them: `cacheWrite` is the
// input rate (and usage never reports a cache write). Models with no cached-input rate
// (the -pro models) read the cache at the input rate. Batch, Flex, Priority and the long-context
// band (prompts past 272,000 tokens on the models that take them) are not used or not modelled;
// the context windows (context-windows.ts) keep prompts in the short-context band.
import type { Price, PriceTable } from "./prices";

/** No cache-write rate at OpenAI: a write is billed as plain input. */
const price = (input: number, output: number, cacheRead: number = input): Price => ({ input, output, cacheWrite: input, cacheRead });

/** Keyed by model id; dated ids (gpt-5-2025-08-07) match their alias by prefix. */
export const OPENAI_PRICES: PriceTable = {
  "gpt-5.6-sol": price(5, 30, 0.5), // per third-party price trackers (announced; cached rate at OpenAI's 90% discount)
  "gpt-5.6-terra": price(2.5, 15, 0.25), // per third-party price trackers (as above)
  "gpt-5.6-luna": price(1, 6, 0.1), // per third-party price trackers (as above)
  "gpt-5.5-pro": price(30, 180),
  "gpt-5.5": price(5, 30, 0.5),
  "gpt-5.4-pro": price(30, 180),
  "gpt-5.4": price(2.5, 15, 0.25),
  "gpt-5.4-mini": price(0.75, 4.5, 0.075),
  "gpt-5.4-nano": price(0.2, 1.25, 0.02),
  "gpt-5.2": price(1.75, 14, 0.175),
  "gpt-5.1": price(1.25, 10, 0.125),
  "gpt-5": price(1.25, 10, 0.125),
  "gpt-5-mini": price(0.25, 2, 0.025),
  "gpt-5-nano": price(0.05, 0.4, 0.005),
  "gpt-4.1": price(2, 8, 0.5),
  "gpt-4.1-mini": price(0.4, 1.6, 0.1),
  "gpt-4.1-nano": price(0.1, 0.4, 0.025),
  "gpt-4o": price(2.5, 10, 1.25),
  "gpt-4o-mini": price(0.15, 0.6, 0.075),
  o3: price(2, 8, 0.5),
  "o4-mini": price(1.1, 4.4, 0.275),
  "o3-mini": price(1.1, 4.4, 0.55),
};
