// The fake Anthropic server as the workerd tests see it: its URL from globalSetup, and its control
// routes over HTTP. Every test takes a model name of its own, so parallel files never meet.
import { inject } from "vitest";
import type { FakeConfig, FakeTurn, RecordedRequest } from "./types";

export type { FakeConfig, FakeFailure, FakeTurn, RecordedRequest } from "./types";

export function fakeAnthropicUrl(): string {
  return inject("fakeAnthropicUrl");
}

/** A model name no other test uses; it starts with `family`, so prices and cache minimums apply. */
export function uniqueModel(family = "claude-sonnet-4-5"): string {
  return `${family}-test-${crypto.randomUUID().slice(0, 12)}`;
}

async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${fakeAnthropicUrl()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`fake Anthropic ${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

export function script(model: string, turns: FakeTurn[]): Promise<void> {
  return post("/__control/script", { model, turns });
}

export function configure(model: string, config: FakeConfig): Promise<void> {
  return post("/__control/config", { model, ...config });
}

export function advanceClock(model: string, advanceMs: number): Promise<void> {
  return post("/__control/clock", { model, advanceMs });
}

export async function recorded(model: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${fakeAnthropicUrl()}/__control/requests?model=${encodeURIComponent(model)}`);
  return (await response.json()) as RecordedRequest[];
}

/** The model's requests once it received `requests` of them (default 1), `aborted` of them aborted by the client (default 0); fails after 20 s. */
export async function requestsWhen(model: string, { requests = 1, aborted = 0 }: { requests?: number; aborted?: number }): Promise<RecordedRequest[]> {
  const response = await fetch(`${fakeAnthropicUrl()}/__control/wait?model=${encodeURIComponent(model)}&requests=${requests}&aborted=${aborted}`);
  if (response.status !== 200) throw new Error(`fake Anthropic: ${response.status} ${await response.text()}`);
  return (await response.json()) as RecordedRequest[];
}

export async function cacheEntries(model: string): Promise<number> {
  const response = await fetch(`${fakeAnthropicUrl()}/__control/cache?model=${encodeURIComponent(model)}`);
  return ((await response.json()) as { entries: number }).entries;
}
