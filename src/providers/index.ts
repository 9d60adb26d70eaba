// The model providers behind one interface. `scripted` is offline and deterministic; `anthropic`
// talks to Claude; `openai` to OpenAI or any OpenAI-compatible endpoint. Which one a run uses,
// with which key, prices and blobs, is the run object's choice (src/durable/run-provider.ts):
// nothing here reads the Worker's environment.
export { createAnthropicProvider, MISSING_KEY_MESSAGE, type AnthropicProviderOptions } from "./anthropic";
export { createOpenAIProvider, MISSING_OPENAI_KEY_MESSAGE, type OpenAIProviderOptions } from "./openai";
export type { ImageData } from "./request-images";
export { ProviderError } from "./errors";
export { modelPrice, priceTableFor, unknownPriceMessage, type PricedProvider } from "./model-prices";
export { createScriptedProvider, scriptSchema, type ScriptedTurn } from "./scripted";
export type { Provider } from "./types";
