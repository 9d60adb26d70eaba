// Compaction on demand in the run object (src/durable/person/compact-run.ts): what happens now, what is kept for the
// run's next model call (compaction-request-store.ts), and what is refused.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compactRun } from "../../src/durable/person/compact-run";
import { compactionRequestsAfter, requestCompaction } from "../../src/durable/engine/incoming/compaction-request-store";
import { scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { engineFor } from "../helpers/engine";
import { createRun, drive, storedEvents, valueOf, viewOf, type RunStub } from "../helpers/runs";
import { runSteps } from "../helpers/slices";

const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });

function requestsOf(stub: RunStub, stepsBefore = 0) {
  return runInDurableObject(stub, (_instance, state) => compactionRequestsAfter(state.storage.sql, stepsBefore));
}

describe("the compaction requests a run keeps", () => {
  it("are kept by the model call of the whole run they come before; a segment sees them as its loop counts", async () => {
    const { stub } = await createRun({ script: [{ text: "Hi." }] });
    await runInDurableObject(stub, (_instance, state) => {
      requestCompaction(state.storage.sql, 3, undefined);
      requestCompaction(state.storage.sql, 7, "Keep the numbers.");
      requestCompaction(state.storage.sql, 7, "Keep the names.");
    });
    expect(await requestsOf(stub)).toEqual([{ step: 3 }, { step: 7, instructions: "Keep the names." }]);
    expect(await requestsOf(stub, 5)).toEqual([{ step: 2, instructions: "Keep the names." }]);
    expect(await requestsOf(stub, 7)).toEqual([]);
  });
});

describe("compactRun", () => {
  it("a running run: kept for its next model call, nothing called now", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc(1), calc(2), { text: "Done." }] });
    await runSteps(stub, 2);
    const view = await runInDurableObject(stub, (_instance, state) => compactRun(engineFor(state), { instructions: "Short." }));
    expect(valueOf(view)).toMatchObject({ status: "running", steps: 1 });
    expect(await requestsOf(stub)).toEqual([{ step: 2, instructions: "Short." }]);
    expect((await storedEvents(stub)).some((event) => event.type === "compaction")).toBe(false);
  });

  it("a finished run whose summary call fails: the compaction is kept for the run's next model call instead", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [calc(1), calc(2), { text: "Done." }]);
    const { stub } = await createRun({ provider: "openai", model, tools: ["calculator"], minAnswerChars: 0 });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 3 });
    // The provider cannot be reached: its retries are recorded, not slept.
    const waits: number[] = [];
    const broken = { ...env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
    const outcome = await runInDurableObject(stub, (_instance, state) => compactRun(engineFor(state, { env: broken, retrySleep: async (ms) => void waits.push(ms) }), {}));
    expect(valueOf(outcome)).toMatchObject({ status: "finished", steps: 3 });
    expect(waits.length).toBeGreaterThan(0);
    expect(await requestsOf(stub)).toEqual([{ step: 4 }]);
    expect((await storedEvents(stub)).some((event) => event.type === "compaction")).toBe(false);
  });

  it("a waiting or finished run whose budget is spent: 409, nothing called", async () => {
    const { stub } = await createRun({ tools: ["calculator"], budget: { usd: 0.02 }, minAnswerChars: 0, script: [{ ...calc(1), costUsd: 0.01 }, { ...calc(2), costUsd: 0.01 }, { text: "never" }] });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "budget" });
    const outcome = await runInDurableObject(stub, (_instance, state) => compactRun(engineFor(state), {}));
    expect(outcome).toMatchObject({ ok: false, status: 409, error: { code: "conflict", message: expect.stringMatching(/budget is spent/) } });
    expect(await requestsOf(stub)).toEqual([]);
  });
});
