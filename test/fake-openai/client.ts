// The fake OpenAI server as the workerd tests see it: its base URL from globalSetup (what
// OPENAI_BASE_URL is set to), and its control routes over HTTP. Every test takes a model name of
// its own, so parallel files never meet.
import { inject } from "vitest";
import type { FakeConfig, FakeTurn, RecordedRequest } from "./types";

export type { FakeConfig, FakeFailure, FakeToolCall, FakeTurn, RecordedRequest } from "./types";

/** The base URL the SDK is given: http://127.0.0.1:<port>/v1. */
export function fakeOpenAIUrl(): string {
  return inject("fakeOpenAIUrl");
}

const control = (path: string) => `${new URL(fakeOpenAIUrl()).origin}${path}`;

/** A model name no other test uses; it starts with `family`, so prices, windows and reasoning rules apply. */
export function uniqueOpenAIModel(family = "gpt-5.5"): string {
  return `${family}-test-${crypto.randomUUID().slice(0, 12)}`;
}

async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(control(path), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`fake OpenAI ${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

export function scriptOpenAI(model: string, turns: FakeTurn[]): Promise<void> {
  return post("/__control/script", { model, turns });
}

export function configureOpenAI(model: string, config: FakeConfig): Promise<void> {
  return post("/__control/config", { model, ...config });
}

export function advanceOpenAIClock(model: string, advanceMs: number): Promise<void> {
  return post("/__control/clock", { model, advanceMs });
}

export async function recordedOpenAI(model: string): Promise<RecordedRequest[]> {
  const response = await fetch(control(`/__control/requests?model=${encodeURIComponent(model)}`));
  return (await response.json()) as RecordedRequest[];
}

/** The model's requests once it received `requests` of them (default 1), `aborted` of them aborted by the client (default 0); fails after 20 s. */
export async function openAIRequestsWhen(model: string, { requests = 1, aborted = 0 }: { requests?: number; aborted?: number }): Promise<RecordedRequest[]> {
  const response = await fetch(control(`/__control/wait?model=${encodeURIComponent(model)}&requests=${requests}&aborted=${aborted}`));
  if (response.status !== 200) throw new Error(`fake OpenAI: ${response.status} ${await response.text()}`);
  return (await response.json()) as RecordedRequest[];
}

export async function openAICacheEntries(model: string): Promise<number> {
  const response = await fetch(control(`/__control/cache?model=${encodeURIComponent(model)}`));
  return ((await response.json()) as { entries: number }).entries;
}
