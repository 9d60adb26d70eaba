// A step span's seed, packed by position (src/durable/telemetry/seed-codec.ts): read back it is the
// seed the step meant, field for field; a seed written in the older object form still reads; and a
// common step's seed is small (its bytes are what trace export costs a step).
import { describe, expect, it } from "vitest";
import type { StoredLoopEvent } from "../../src/loop/types";
import { decodeSeed, encodeSeed, type Seed } from "../../src/durable/telemetry/seed-codec";
import { expandSeed, seedText } from "../../src/durable/telemetry/span-seed";

const usage = { inputTokens: 1234, outputTokens: 56, cachedReadTokens: 1000, cachedWriteTokens: 7 };
const model: StoredLoopEvent = { type: "model", key: "model/3", step: 3, text: "", toolCalls: [], usage, costUsd: 0.0012, spentUsd: 0.0345, stopReason: "tool_use" };
const tool: StoredLoopEvent = { type: "tool-result", key: "tool/3/c1", step: 3, callId: "c1", name: "calculator", ok: true, summary: "", costUsd: 0 };
const run: Parameters<typeof expandSeed>[1] = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", runId: "run_abc", model: "scripted-model", provider: "scripted", toolType: () => "function" };

const seeds: [string, Seed][] = [
  ["a model step", { segment: 1, attempt: 0, capture: false, step: { key: "model/3", events: [model], costUsd: 0.0012, startedAt: 1_764_000_000_000, endedAt: 1_764_000_000_012 } }],
  ["a model step with the provider's own tools counted", { segment: 2, attempt: 1, capture: false, step: { key: "model/3", events: [{ ...model, usage: { ...usage, serverToolUse: { webSearchRequests: 2, webFetchRequests: 0 } } } as StoredLoopEvent], costUsd: 0.0012, startedAt: 5, endedAt: 9 } }],
  ["a tool step with its call", { segment: 1, attempt: 0, capture: false, step: { key: "tool/3/c1", events: [tool], costUsd: 0, startedAt: 10, endedAt: 11, call: { name: "calculator", callId: "c1", input: null } } }],
  ["a call never run", { segment: 1, attempt: 0, capture: false, step: { key: "tool/3/c2", events: [{ ...tool, key: "tool/3/c2", callId: "c2", ok: false, notRun: true } as StoredLoopEvent], costUsd: 0, startedAt: 10, endedAt: 10 } }],
  ["an event under another key", { segment: 1, attempt: 0, capture: false, step: { key: "start/3/c1", events: [tool], costUsd: 0, startedAt: 1, endedAt: 2 } }],
  ["an agent call's wait", { segment: 1, attempt: 0, capture: false, step: { key: "wait/3/c1", events: [tool], costUsd: 0.01, startedAt: 100, endedAt: 900, call: { name: "helper", callId: "c1", input: null }, waitStartedAt: 50, childId: "run_child" } }],
  ["a compaction", { segment: 1, attempt: 0, capture: false, step: { key: "compact/4", events: [{ type: "compaction", key: "compact/4", step: 4, mode: "summary", reason: "threshold", tokensBefore: 9000, tokensAfter: 900 } as StoredLoopEvent], costUsd: 0.002, startedAt: 1, endedAt: 3 } }],
  ["capture on: events whole, the call's input kept", { segment: 1, attempt: 0, capture: true, step: { key: "model/3", events: [{ ...model, text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] } as StoredLoopEvent], costUsd: 0.0012, startedAt: 1, endedAt: 2, call: { name: "calculator", callId: "c1", input: { expression: "1+1" } } } }],
];

describe("a span seed packed by position", () => {
  it.each(seeds)("%s reads back as it was written", (_name, seed) => {
    expect(decodeSeed(encodeSeed(seed))).toEqual(seed);
  });

  it("a seed of the older object form reads, and makes the same spans as its packed form", () => {
    const [, seed] = seeds[0]!;
    const older = JSON.stringify(seed);
    expect(decodeSeed(older)).toEqual(seed);
    expect(expandSeed(older, run)).toEqual(expandSeed(encodeSeed(seed), run));
  });

  it("a model step's seed is under 170 bytes, where the object form took over 300", () => {
    const scope = { segment: 1, attempt: 0, capture: false };
    const step = { key: "model/3", events: [{ ...model, text: "Let me add those.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 * 23" } }] } as StoredLoopEvent], costUsd: 0.0012, startedAt: 1_764_000_000_000, endedAt: 1_764_000_000_012 };
    const text = seedText(scope, step);
    expect(text.length).toBeLessThan(170);
    expect(JSON.stringify(decodeSeed(text)).length).toBeGreaterThan(300);
    // Capture off: nothing the model said is in it.
    expect(text).not.toContain("Let me add");
    expect(text).not.toContain("17 * 23");
  });
});
