// The openai provider pointed at the fake OpenAI server, with waits recorded instead of slept.
import { createOpenAIProvider, type OpenAIProviderOptions } from "../../src/providers/openai/openai";
import type { ImageData } from "../../src/providers/common/request-images";
import { recordingDeps, type Recording } from "./recording-deps";
import { fakeOpenAIUrl } from "../fake-openai/client";

export type TestOpenAIProvider = ReturnType<typeof createOpenAIProvider> & Recording;

export function testOpenAIProvider(options: Partial<OpenAIProviderOptions> & { stored?: Record<string, ImageData> } = {}): TestOpenAIProvider {
  const { stored = {}, ...rest } = options;
  const { recording, deps } = recordingDeps(stored);
  return { ...createOpenAIProvider({ apiKey: "test-openai-key", baseURL: fakeOpenAIUrl(), ...deps, ...rest }), ...recording };
}
