// The openai provider pointed at the fake OpenAI server, with waits recorded instead of slept.
import { createOpenAIProvider, type OpenAIProviderOptions } from "../../src/providers/openai";
import type { ImageData } from "../../src/providers/request-images";
import { fakeOpenAIUrl } from "../fake-openai/client";

export type TestOpenAIProvider = ReturnType<typeof createOpenAIProvider> & {
  /** Every wait between attempts, in ms. */
  sleeps: number[];
  /** Every image read, by hash. */
  imageReads: string[];
};

export function testOpenAIProvider(options: Partial<OpenAIProviderOptions> & { stored?: Record<string, ImageData> } = {}): TestOpenAIProvider {
  const sleeps: number[] = [];
  const imageReads: string[] = [];
  const { stored = {}, ...rest } = options;
  const provider = createOpenAIProvider({
    apiKey: "test-openai-key",
    baseURL: fakeOpenAIUrl(),
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
