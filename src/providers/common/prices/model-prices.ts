// Which price a run's model gets: the provider's own table with the deployment's PRICES rows laid
// over it (a PRICES row wins over a built-in row of the same id, and applies to whichever provider
// the model is asked of). A model with neither has no price: the edge refuses a run on it with a
// 400 that names PRICES, instead of pricing it as some other model. The scripted provider plays
// costs from its script and needs no price.
import type { TokenPrices } from "../../../loop/types";
import { ProviderError } from "../errors";
import { OPENAI_PRICES } from "./openai-prices";
import { ANTHROPIC_PRICES, priceOf, tokenPrices, type Price, type PriceTable } from "./prices";

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

/**
 * The price a call on `model` is charged at. The edge refuses a run on a model with no price; one
 * whose PRICES row went away since fails here, before anything is sent.
 */
export function callPrice(provider: PricedProvider, model: string, table: PriceTable): Price {
  const price = priceOf(model, table);
  if (price === undefined) throw new ProviderError(unknownPriceMessage(provider, model), false);
  return price;
}

/** A provider's `prices`: USD per token of a model in `table`, undefined for a model with no price. */
export function tokenPricesIn(table: PriceTable): (model: string) => TokenPrices | undefined {
  return (model) => {
    const price = priceOf(model, table);
    return price === undefined ? undefined : tokenPrices(price);
  };
}
