// Picks the provider of a run. `scripted` is offline and deterministic; `anthropic` talks to Claude.
import type { ChatMessage } from "../loop/types";
import { createScriptedProvider, scriptSchema } from "./scripted";
import type { Provider } from "./types";

export type ProviderChoice = {
  provider: "anthropic" | "scripted";
  script?: unknown;
  messages: ChatMessage[];
};

export function createProvider(choice: ProviderChoice, env: Env): Provider {
  if (choice.provider === "scripted") {
    const offset = choice.messages.filter((message) => message.role === "assistant").length;
    const turns = choice.script === undefined ? undefined : scriptSchema.parse(choice.script);
    return createScriptedProvider(turns === undefined ? { offset } : { turns, offset });
  }
  void env;
  throw new Error("The anthropic provider is not available in this build.");
}
