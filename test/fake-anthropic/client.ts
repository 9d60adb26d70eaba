// The fake Anthropic server as the workerd tests see it: its URL from globalSetup, and its control
// routes over HTTP (test/helpers/fake-vendor-control.ts). Every test takes a model name of its own,
// so parallel files never meet.
import { inject } from "vitest";
import { vendorControl } from "../helpers/fake-vendor-control";
import type { FakeConfig, FakeTurn, RecordedRequest } from "./types";

export type { FakeConfig, FakeFailure, FakeTurn, RecordedRequest } from "./types";

export function fakeAnthropicUrl(): string {
  return inject("fakeAnthropicUrl");
}

/** A model name no other test uses; it starts with `family`, so prices and cache minimums apply. */
export function uniqueModel(family = "claude-sonnet-4-5"): string {
  return `${family}-test-${crypto.randomUUID().slice(0, 12)}`;
}

export const { script, configure, advanceClock, recorded, requestsWhen, cacheEntries } = vendorControl<FakeTurn, FakeConfig, RecordedRequest>("Anthropic", fakeAnthropicUrl);
