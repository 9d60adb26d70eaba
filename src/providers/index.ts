// The model providers behind one interface. `scripted` is offline and deterministic; `anthropic`
// talks to Claude; `openai` to OpenAI or any OpenAI-compatible endpoint. Which one a run uses,
// with which key, prices and blobs, is the run object's choice (src/durable/engine/provider/run-provider.ts):
// nothing here reads the Worker's environment.
//
// One folder per vendor: anthropic/ and openai/ (each its provider, request body, stream assembly
// and errors; openai/ also its list prices), scripted/ (the offline provider). What they share is
// in common/: the Provider type, the retry policy and the attempts of a call, the errors that end
// a call, prices (with Anthropic's list prices) and the price a run's model gets, context windows,
// reasoning and request images.
export { createAnthropicProvider, MISSING_KEY_MESSAGE, type AnthropicProviderOptions } from "./anthropic/anthropic";
export { createOpenAIProvider, MISSING_OPENAI_KEY_MESSAGE, type OpenAIProviderOptions } from "./openai/openai";
export type { ImageData } from "./common/request-images";
export { ProviderError } from "./common/errors";
export { modelPrice, priceTableFor, unknownPriceMessage, type PricedProvider } from "./common/prices/model-prices";
export { createScriptedProvider, scriptSchema, type ScriptedTurn } from "./scripted/scripted";
export { Holds, holdNameSchema, type WaitForRelease } from "./scripted/holds";
export type { Provider } from "./common/types";
