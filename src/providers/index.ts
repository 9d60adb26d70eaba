// The model providers behind one interface. `scripted` is offline and deterministic; `anthropic`
// talks to Claude. Which one a run uses, with which key and blobs, is the run object's choice
// (src/durable/run-provider.ts): nothing here reads the Worker's environment.
export { createAnthropicProvider, MISSING_KEY_MESSAGE, type AnthropicProviderOptions } from "./anthropic";
export type { ImageData } from "./anthropic-request";
export { ProviderError } from "./errors";
export { createScriptedProvider, scriptSchema, type ScriptedTurn } from "./scripted";
export type { Provider } from "./types";
