// Runs in Node before the workerd tests: the fake Anthropic server (server.ts). Tests read its URL
// with inject("fakeAnthropicUrl") and drive it over HTTP (client.ts).
import type { TestProject } from "vitest/node";
import { startFakeAnthropic } from "./server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fake = await startFakeAnthropic();
  project.provide("fakeAnthropicUrl", fake.url);
  return () => fake.close();
}
