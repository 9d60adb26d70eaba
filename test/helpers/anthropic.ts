// The anthropic provider pointed at the fake server, with waits recorded instead of slept.
import type { ChatMessage, GenerateRequest, ToolDefinition } from "../../src/loop";
import { createAnthropicProvider, type AnthropicProviderOptions } from "../../src/providers/anthropic";
import type { ImageData } from "../../src/providers/anthropic-request";
import { fakeAnthropicUrl } from "../fake-anthropic/client";

export type TestProvider = ReturnType<typeof createAnthropicProvider> & {
  /** Every wait between attempts, in ms. */
  sleeps: number[];
  /** Every image read, by hash. */
  imageReads: string[];
};

export function testProvider(options: Partial<AnthropicProviderOptions> & { stored?: Record<string, ImageData> } = {}): TestProvider {
  const sleeps: number[] = [];
  const imageReads: string[] = [];
  const { stored = {}, ...rest } = options;
  const provider = createAnthropicProvider({
    apiKey: "test-key",
    baseURL: fakeAnthropicUrl(),
    images: async (hash) => {
      imageReads.push(hash);
      return stored[hash];
    },
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (signal.aborted) throw signal.reason;
    },
    random: () => 0.5,
    ...rest,
  });
  return { ...provider, sleeps, imageReads };
}

export const searchTool: ToolDefinition = {
  name: "search",
  description: "Search the web.",
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false },
};

export function textRequest(model: string, messages: ChatMessage[] = [{ role: "user", content: "Hello?" }], more: Partial<GenerateRequest> = {}): GenerateRequest {
  return { prompt: "", model, messages, tools: [searchTool], toolChoice: "auto", cacheSystem: true, system: "You are terse.", ...more };
}

export const context = (signal: AbortSignal = new AbortController().signal, onDelta?: (delta: string) => void) => (onDelta === undefined ? { signal } : { signal, onDelta });

/** Rejection of `promise`, or a failure if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
