// The fake OpenAI server as the workerd tests see it: its base URL from globalSetup (what
// OPENAI_BASE_URL is set to), and its control routes over HTTP (test/helpers/fake-vendor-control.ts).
// Every test takes a model name of its own, so parallel files never meet.
import { inject } from "vitest";
import { vendorControl } from "../helpers/fake-vendor-control";
import type { FakeConfig, FakeTurn, RecordedRequest } from "./types";

export type { FakeConfig, FakeFailure, FakeToolCall, FakeTurn, RecordedRequest } from "./types";

/** The base URL the SDK is given: http://127.0.0.1:<port>/v1. */
export function fakeOpenAIUrl(): string {
  return inject("fakeOpenAIUrl");
}

/** A model name no other test uses; it starts with `family`, so prices, windows and reasoning rules apply. */
export function uniqueOpenAIModel(family = "gpt-5.5"): string {
  return `${family}-test-${crypto.randomUUID().slice(0, 12)}`;
}

export const {
  script: scriptOpenAI,
  configure: configureOpenAI,
  advanceClock: advanceOpenAIClock,
  recorded: recordedOpenAI,
  requestsWhen: openAIRequestsWhen,
  cacheEntries: openAICacheEntries,
} = vendorControl<FakeTurn, FakeConfig, RecordedRequest>("OpenAI", () => new URL(fakeOpenAIUrl()).origin);
