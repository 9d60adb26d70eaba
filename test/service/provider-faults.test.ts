// Provider faults injected at the fake Anthropic server, through the whole service: runs finish when
// the fault passes, fail with a clear retryable error when it does not, nothing is charged twice,
// and spend never passes the budget by more than one model call. Retry waits are recorded, not slept.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { recorded, script, uniqueModel, type FakeFailure } from "../fake-anthropic/client";
import { storedEvents, stubFor } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { api, getRun, startRun } from "../helpers/service-client";

/** Runs the run's slices in its object until it stops, recording the provider's retry waits. */
async function runToEnd(id: string, waits: number[] = []): Promise<number[]> {
  const stub = stubFor(id) as unknown as DurableObjectStub<RunObject>;
  for (let slice = 0; slice < 20; slice++) {
    const more = await runInDurableObject(stub, async (_instance, state) => {
      const engine = { ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), retrySleep: async (ms: number) => void waits.push(ms) };
      return (await runSlice(engine, new AbortController())) === "more";
    });
    if (!more) break;
  }
  return waits;
}

const faults: [string, FakeFailure][] = [
  ["429 with retry-after", { status: 429, type: "rate_limit_error", message: "Number of requests has exceeded your rate limit", retryAfter: "2" }],
  ["529 overloaded", { status: 529, type: "overloaded_error", message: "Overloaded" }],
  ["500 api error", { status: 500, type: "api_error", message: "Internal server error" }],
  ["a connection reset", { reset: true }],
  ["an error event in the middle of a stream", { streamError: { type: "overloaded_error", message: "Overloaded" }, afterEvents: 3 }],
  ["a stream that stops without message_stop", { cut: { afterEvents: 4 } }],
];

const turns = (failures: FakeFailure[]) => [
  { text: "Adding.", toolCalls: [{ id: "toolu_1", name: "calculator", input: { expression: "2+2" } }], failures },
  { text: "Four." },
];

describe("text streamed before a provider retry", () => {
  it("is declared void on the socket: a live text-reset, then the retry's text; what follows the reset is the model's text", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "Streaming twice over.", chunk: 4, failures: [{ streamError: { type: "overloaded_error", message: "Overloaded" }, afterEvents: 5 }] }]);
    const { run } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "Say it." }] });
    const watcher = await watch(stubFor(run.id));
    await runToEnd(run.id);
    await watcher.next((frame) => frame.type === "end");
    const step = watcher.frames.filter((frame) => (frame.type === "text" || frame.type === "text-reset") && frame.step === 1);
    const resets = step.flatMap((frame, i) => (frame.type === "text-reset" ? [i] : []));
    expect(resets).toHaveLength(1);
    const before = step.slice(0, resets[0]).map((frame) => String(frame.delta)).join("");
    const after = step.slice(resets[0]! + 1).map((frame) => String(frame.delta)).join("");
    expect(before.length).toBeGreaterThan(0);
    expect("Streaming twice over.".startsWith(before)).toBe(true);
    expect(after).toBe("Streaming twice over.");
    expect(watcher.frames.find((frame) => frame.type === "model")).toMatchObject({ text: "Streaming twice over." });
    expect((await storedEvents(stubFor(run.id))).some((event) => event.type === "text-reset")).toBe(false);
  });
});

describe("provider faults at the fake Anthropic server", () => {
  for (const [name, failure] of faults) {
    it(`${name}: retried inside the step; the run finishes, charged once per finished call`, async () => {
      const model = uniqueModel("claude-sonnet-5-5");
      await script(model, turns([failure, failure]));
      const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "2+2?" }], tools: ["calculator"], minAnswerChars: 0 });
      const waits = await runToEnd(run.id);
      const view = await getRun(run.id, token);
      expect(view).toMatchObject({ status: "finished", finalText: "Four.", steps: 2 });
      expect(await recorded(model)).toHaveLength(4); // two failed attempts, then step 1, then step 2
      expect(waits).toHaveLength(2);
      if ("retryAfter" in failure) expect(waits).toEqual([2000, 2000]);
      // Charged once: the run's spend is the two finished calls' cost, nothing for failed attempts.
      const messages = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: unknown[] };
      expect(messages.messages).toHaveLength(4);
      expect(view.spentUsd).toBeGreaterThan(0);
      expect(view.spentUsd).toBeCloseTo(await stepCosts(run.id), 12);
    });
  }

  it("a fault that does not pass fails the run with a clear, retryable error; retry finishes it without asking again for finished steps", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    const overloaded: FakeFailure = { status: 529, type: "overloaded_error", message: "Overloaded" };
    await script(model, [{ text: "Adding.", toolCalls: [{ id: "toolu_1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four.", failures: Array(5).fill(overloaded) }]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: [{ role: "user", content: "2+2?" }], tools: ["calculator"], minAnswerChars: 0 });
    await runToEnd(run.id);
    const failed = await getRun(run.id, token);
    expect(failed).toMatchObject({ status: "failed", stoppedBy: "error", steps: 1, error: { code: "provider-error", retryable: true } });
    expect(failed.error!.message).toMatch(/529/);
    expect((await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" })).status).toBe(202);
    await runToEnd(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Four.", steps: 2 });
    expect(await recorded(model)).toHaveLength(1 + 5 + 1);
  });

  it("spend never passes the budget: the last call's max_tokens is lowered to fit, or no call is made (largest overshoot reported: 0)", async () => {
    let largest = Number.NEGATIVE_INFINITY;
    let largestCall = 0;
    const endings = new Set<string>();
    for (const usd of [0.0005, 0.001, 0.002, 0.003, 0.02, 0.05]) {
      const model = uniqueModel("claude-sonnet-5-5");
      const many = Array.from({ length: 30 }, (_v, i) => ({ text: `Step ${i}. ${"words ".repeat(40)}`, toolCalls: [{ id: `toolu_${i}`, name: "calculator", input: { expression: `${i}+1` } }] }));
      await script(model, many);
      const { run, token } = await startRun({ provider: "anthropic", model, maxSteps: 30, budget: { usd }, messages: [{ role: "user", content: "count" }], tools: ["calculator"] });
      await runToEnd(run.id);
      const view: RunView = await getRun(run.id, token);
      endings.add(view.stoppedBy!);
      expect(["budget", "steps", "done"]).toContain(view.stoppedBy);
      const perCall = await modelCallCosts(run.id);
      const overshoot = view.spentUsd - usd;
      expect(overshoot).toBeLessThanOrEqual(1e-12);
      largest = Math.max(largest, overshoot);
      largestCall = Math.max(largestCall, ...perCall, 0);
      // Every call asked for no more answer tokens than the budget had left for.
      for (const request of await recorded(model)) {
        const maxTokens = (request.body as { max_tokens: number }).max_tokens;
        expect(maxTokens).toBeGreaterThanOrEqual(512);
      }
    }
    // The smallest budget fits no call at all; the larger ones end on a last call whose max_tokens was lowered.
    expect(endings.has("budget")).toBe(true);
    console.log(`[provider-faults] largest budget overshoot $${Math.max(0, largest).toFixed(6)} (largest single model call $${largestCall.toFixed(6)}; endings ${[...endings].join(", ")})`);
  });
});

async function journalCosts(id: string): Promise<{ key: string; cost: number }[]> {
  const stub = stubFor(id) as unknown as DurableObjectStub<RunObject>;
  return runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<{ key: string; cost: number }>("SELECT key, cost FROM journal").toArray());
}

/** The run's spend as its committed steps add it up. */
async function stepCosts(id: string): Promise<number> {
  return (await journalCosts(id)).reduce((sum, row) => sum + row.cost, 0);
}

/** The cost of each committed model call. */
async function modelCallCosts(id: string): Promise<number[]> {
  return (await journalCosts(id)).filter((row) => row.key.includes("/model/")).map((row) => row.cost);
}
