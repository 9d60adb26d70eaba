// Which price a run's model gets: the provider's own table with the deployment's PRICES rows laid
// over it (a PRICES row wins over a built-in row of the same id, and applies to whichever provider
// the model is asked of). A model with neither has no price: the edge refuses a run on it with a
// 400 that names PRICES, instead of pricing it as some other model. The scripted provider plays
// costs from its script and needs no price.
import { OPENAI_PRICES } from "./openai-prices";
import { ANTHROPIC_PRICES, priceOf, type Price, type PriceTable } from "./prices";

export type PricedProvider = "anthropic" | "openai";

/** The provider's built-in table with the deployment's rows over it. */
export function priceTableFor(provider: PricedProvider, overrides: PriceTable = {}): PriceTable {
  return { ...(provider === "anthropic" ? ANTHROPIC_PRICES : OPENAI_PRICES), ...overrides };
}

/** The price of `model` on `provider`, or undefined when none is known. */
export function modelPrice(provider: PricedProvider, model: string, overrides: PriceTable = {}): Price | undefined {
  return priceOf(model, priceTableFor(provider, overrides));
}

/** What a run on a model with no price is told (the 400 at creation, and a run's failure if PRICES lost the row since). */
export function unknownPriceMessage(provider: PricedProvider, model: string): string {
  return (
    `No price is known for model ${JSON.stringify(model)} on provider "${provider}": add it to the PRICES setting ` +
    `(JSON, USD per million tokens: {${JSON.stringify(model)}: {"input": …, "output": …, "cacheRead": …, "cacheWrite": …}}).`
  );
}
