// Picks a run's provider and gives it what it needs from this deployment: the provider's key and
// endpoint from the environment, the price table with the PRICES rows laid over it, and the
// run's own images from the blob store; the scripted provider its turns, parsed once per object
// (run-script.ts), and only where SCRIPTED_PROVIDER=on. Providers never read the environment themselves.
import { pricesOf, SCRIPTED_PROVIDER_SETTING, scriptedProviderOn } from "../../../config/settings";
import { createAnthropicProvider, createOpenAIProvider, createScriptedProvider, priceTableFor, ProviderError, type ImageData, type Provider, type ScriptedTurn, type WaitForRelease } from "../../../providers";
import type { ProviderName } from "../../../api/types";
import type { ChatMessage } from "../../../loop/types";
import type { BlobStore } from "../../blobs/blob-store";

export type ProviderChoice = {
  runId: string;
  provider: ProviderName;
  /** The scripted provider's turns, parsed (run-script.ts). */
  script?: ScriptedTurn[];
  messages: ChatMessage[];
  /** How the real providers wait between retries (tests pass one that records and returns). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The scripted provider's record of `once` error turns that failed already (durable: once-log.ts). */
  firstFailure?: (index: number) => Promise<boolean>;
  /** How the scripted provider's held turns wait for their release (durable: scripted-holds.ts). */
  hold?: WaitForRelease;
};

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let at = 0; at < bytes.length; at += chunk) binary += String.fromCharCode(...bytes.subarray(at, at + chunk));
  return btoa(binary);
}

/** Why a scripted run may not call its model here: SCRIPTED_PROVIDER is off. */
export const SCRIPTED_OFF_MESSAGE = `The scripted provider is off on this deployment (${SCRIPTED_PROVIDER_SETTING}=on turns it on, for local runs and tests): this run cannot call its model.`;

export function createRunProvider(choice: ProviderChoice, env: Env, blobs: BlobStore): Provider {
  if (choice.provider === "scripted") {
    const offset = choice.messages.filter((message) => message.role === "assistant").length;
    const durable = { ...(choice.firstFailure === undefined ? {} : { firstFailure: choice.firstFailure }), ...(choice.hold === undefined ? {} : { hold: choice.hold }) };
    const scripted = createScriptedProvider(choice.script === undefined ? { offset, ...durable } : { turns: choice.script, offset, ...durable });
    // The second line behind the intake: a run stored while the switch was on (or planted past the
    // intake) is still built (reading it needs its provider), but its next model call fails the run.
    if (scriptedProviderOn(env)) return scripted;
    return { ...scripted, generate: () => Promise.reject(new ProviderError(SCRIPTED_OFF_MESSAGE, false)) };
  }
  // A missing key is not an error here: reading a run's messages builds its provider too. The
  // first model call fails instead, with a message that says what to set.
  const shared = {
    // The global fetch, looked up per call (never a tool's fetch, never bound to another object).
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
    images: async (hash: string): Promise<ImageData | undefined> => {
      const bytes = await blobs.readImage(choice.runId, hash);
      return bytes === undefined ? undefined : { data: toBase64(bytes) };
    },
    prices: priceTableFor(choice.provider, pricesOf(env)),
    ...(choice.sleep === undefined ? {} : { sleep: choice.sleep }),
  };
  if (choice.provider === "openai") {
    return createOpenAIProvider({ apiKey: env.OPENAI_API_KEY || undefined, baseURL: env.OPENAI_BASE_URL?.trim() || undefined, ...shared });
  }
  return createAnthropicProvider({ apiKey: env.ANTHROPIC_API_KEY || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined, ...shared });
}
