// Picks the provider of a run. `scripted` is offline and deterministic; `anthropic` talks to Claude.
import { imageKey } from "../api/images";
import type { ChatMessage } from "../loop/types";
import { createAnthropicProvider } from "./anthropic";
import type { ImageData } from "./anthropic-request";
import { createScriptedProvider, scriptSchema } from "./scripted";
import type { Provider } from "./types";

export type ProviderChoice = {
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

/** An image stored by the edge under images/<hash> (see src/api/images.ts). */
async function readImage(bucket: R2Bucket, hash: string): Promise<ImageData | undefined> {
  const object = await bucket.get(imageKey(hash));
  if (object === null) return undefined;
  const bytes = new Uint8Array(await object.arrayBuffer());
  return { data: toBase64(bytes), mimeType: object.httpMetadata?.contentType ?? "application/octet-stream" };
}

export function createProvider(choice: ProviderChoice, env: Env): Provider {
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
    images: (hash) => readImage(env.BLOBS, hash),
    ...(choice.sleep === undefined ? {} : { sleep: choice.sleep }),
  });
}
