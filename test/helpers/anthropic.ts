// The anthropic provider pointed at the fake server, with waits recorded instead of slept.
import type { ChatMessage, GenerateRequest, ToolDefinition } from "../../src/loop";
import { createAnthropicProvider, type AnthropicProviderOptions } from "../../src/providers/anthropic/anthropic";
import type { ImageData } from "../../src/providers/anthropic/anthropic-request";
import { recordingDeps, type Recording } from "./recording-deps";
import { fakeAnthropicUrl } from "../fake-anthropic/client";

export type TestProvider = ReturnType<typeof createAnthropicProvider> & Recording;

export function testProvider(options: Partial<AnthropicProviderOptions> & { stored?: Record<string, ImageData> } = {}): TestProvider {
  const { stored = {}, ...rest } = options;
  const { recording, deps } = recordingDeps(stored);
  return { ...createAnthropicProvider({ apiKey: "test-key", baseURL: fakeAnthropicUrl(), ...deps, ...rest }), ...recording };
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
