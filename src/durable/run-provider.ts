// Picks a run's provider and gives it what it needs from this deployment: the Anthropic key and
// endpoint from the environment, and the run's own images from the blob store.
import { createAnthropicProvider, createScriptedProvider, scriptSchema, type ImageData, type Provider } from "../providers";
import type { ChatMessage } from "../loop/types";
import type { BlobStore } from "./blob-store";

export type ProviderChoice = {
  runId: string;
  provider: "anthropic" | "scripted";
  script?: unknown;
  messages: ChatMessage[];
  /** How the anthropic provider waits between retries (tests pass one that records and returns). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let at = 0; at < bytes.length; at += chunk) binary += String.fromCharCode(...bytes.subarray(at, at + chunk));
  return btoa(binary);
}

export function createRunProvider(choice: ProviderChoice, env: Env, blobs: BlobStore): Provider {
  if (choice.provider === "scripted") {
    const offset = choice.messages.filter((message) => message.role === "assistant").length;
    const turns = choice.script === undefined ? undefined : scriptSchema.parse(choice.script);
    return createScriptedProvider(turns === undefined ? { offset } : { turns, offset });
  }
  // A missing key is not an error here: reading a run's messages builds its provider too. The
  // first model call fails instead, with a message that says what to set.
  return createAnthropicProvider({
    apiKey: env.ANTHROPIC_API_KEY || undefined,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    // The global fetch, looked up per call (never a tool's fetch, never bound to another object).
    fetch: (input, init) => fetch(input, init),
    images: async (hash): Promise<ImageData | undefined> => {
      const bytes = await blobs.readImage(choice.runId, hash);
      return bytes === undefined ? undefined : { data: toBase64(bytes) };
    },
    ...(choice.sleep === undefined ? {} : { sleep: choice.sleep }),
  });
}
