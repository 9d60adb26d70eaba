// Runs in Node before the workerd tests: the fake OpenAI server (server.ts). Tests read its base
// URL with inject("fakeOpenAIUrl") and drive it over HTTP (client.ts).
import type { TestProject } from "vitest/node";
import { startFakeOpenAI } from "./server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fake = await startFakeOpenAI();
  project.provide("fakeOpenAIUrl", fake.url);
  return () => fake.close();
}
