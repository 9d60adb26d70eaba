// A run resumes by itself after eviction or a crash at any stage, repeats no finished step, and
// its event log has no gap and no duplicate.
import { abortAllDurableObjects, env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { MAX_NEW_STEPS_PER_SLICE, runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, drive, journalKeys, storedEvents, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";
import { watch } from "../helpers/watch";

const script = [
  { text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }], costUsd: 0.01 },
  { text: "Multiplying.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "4*5" } }], costUsd: 0.01 },
  { text: "It is 20.", costUsd: 0.01 },
];
const expectedKeys = ["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"];

/** Runs exactly `steps` new steps of the run in its object, then stops the slice. */
async function runSteps(stub: RunStub, steps: number): Promise<void> {
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: steps }, new AbortController());
  });
}

function checkLog(events: StoredEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
  const identities = events.map((e) => JSON.stringify([e.type, "step" in e ? e.step : null, "callId" in e ? e.callId : null]));
  expect(new Set(identities).size).toBe(identities.length);
}

/** After an abort every stub of the object is broken: the test takes a new one, as a client would. */
async function finishAndCheck(id: string): Promise<void> {
  const stub = stubFor(id);
  // No alarm may be left after an abort: any request re-arms a running run whose alarm is gone.
  await viewOf(stub);
  await drive(stub);
  const view = await viewOf(stub);
  expect(view).toMatchObject({ status: "finished", finalText: "It is 20.", steps: 3 });
  expect(view.spentUsd).toBeCloseTo(0.03, 10);
  expect(await journalKeys(stub)).toEqual(expectedKeys);
  const events = await storedEvents(stub);
  checkLog(events);
  expect(events.filter((e) => e.type === "model")).toHaveLength(3);
  expect(events.filter((e) => e.type === "tool-result")).toHaveLength(2);
  expect(events.filter((e) => e.type === "end")).toHaveLength(1);
}

describe("eviction and crashes", () => {
  it("evicted before the first model call: the alarm still runs it", async () => {
    const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
    await evictDurableObject(stub);
    await finishAndCheck(id);
  });

  for (let steps = 1; steps <= 4; steps++) {
    it(`evicted after ${steps} step(s) (between a model call and its tool, or after a tool): resumes without repeating`, async () => {
      const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
      await runSteps(stub, steps);
      expect(await journalKeys(stub)).toEqual(expectedKeys.slice(0, steps));
      await evictDurableObject(stub);
      await finishAndCheck(id);
    });

    it(`aborted (all objects reset) after ${steps} step(s): resumes without repeating`, async () => {
      const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
      await runSteps(stub, steps);
      await abortAllDurableObjects();
      await finishAndCheck(id);
    });
  }

  /**
   * A run whose first model call (held: a scripted `hold`) is cut by aborting every object once its
   * step-start is out; then the hold is released (stored), so the step's next try answers.
   */
  async function abortDuringFirstModelCall(): Promise<string> {
    const held = [{ ...script[0], hold: "first" }, script[1], script[2]];
    const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: held });
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub).catch((error: unknown) => error);
    await watcher.next((frame) => frame.type === "step-start");
    await abortAllDurableObjects();
    await alarm;
    valueOf(await stubFor(id).releaseHold("first"));
    return id;
  }

  it("aborted during a model call: only that step runs again and its step-start is not logged twice", async () => {
    const id = await abortDuringFirstModelCall();
    expect(await journalKeys(stubFor(id))).toEqual([]);
    await finishAndCheck(id);
  });

  it("aborted during a model call: the step's second try first sends a live text-reset (what the first try streamed is void)", async () => {
    const id = await abortDuringFirstModelCall();
    const fresh = stubFor(id);
    const second = await watch(fresh);
    await drive(fresh);
    await second.next((frame) => frame.type === "end");
    const types = second.frames.map((frame) => `${String(frame.type)}${"step" in frame ? `/${String(frame.step)}` : ""}${frame.seq === undefined ? " live" : ""}`);
    // The stored step-start of step 1 (logged once, by the first try), then the reset, then the retry's text.
    expect(types.slice(0, 4)).toEqual(["run-started", "step-start/1", "text-reset/1 live", "text/1 live"]);
    expect(types.filter((type) => type.startsWith("text-reset"))).toEqual(["text-reset/1 live"]);
    const text = second.frames.filter((frame) => frame.type === "text" && frame.step === 1).map((frame) => String(frame.delta)).join("");
    expect(text).toBe("Adding.");
    expect((await storedEvents(fresh)).some((event) => event.type === "text-reset")).toBe(false);
  });

  it("evicted while waiting for an answer: the answer still continues the run", async () => {
    const { id, stub } = await createRun({ tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }, { text: "Thanks." }] });
    await drive(stub);
    await evictDurableObject(stub);
    expect((await viewOf(stub)).status).toBe("waiting");
    valueOf(await stub.answer({ callId: "q", content: "yes" }));
    await abortAllDurableObjects();
    const fresh = stubFor(id);
    await drive(fresh);
    expect(await viewOf(fresh)).toMatchObject({ status: "finished", finalText: "Thanks." });
    checkLog(await storedEvents(fresh));
  });

  it("a hand-called alarm({ retryCount, isRetry }) replays and goes on", async () => {
    const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
    await runSteps(stub, 2);
    await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (instance) => instance.alarm({ retryCount: 1, isRetry: true, scheduledTime: Date.now() }));
    await finishAndCheck(id);
  });

  it("a long run is stepped in slices by alarms, none of which does more than its share", async () => {
    const turns = Array.from({ length: 600 }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i}+1` } }], costUsd: 0 }));
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 601, minAnswerChars: 0, script: [...turns, { text: "done" }] });
    const slices = await drive(stub);
    expect((await viewOf(stub)).status).toBe("finished");
    expect(slices).toBe(Math.ceil(1201 / MAX_NEW_STEPS_PER_SLICE));
    checkLog(await storedEvents(stub));
  });

  it("a slice that replays steps logs one line: the run, the steps replayed and the time before its first new step", async () => {
    const { id, stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
    await runSteps(stub, 3);
    await evictDurableObject(stub);
    const spy = vi.spyOn(console, "log");
    try {
      await runDurableObjectAlarm(stubFor(id));
      const lines = spy.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("ratchet.replay"));
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]!) as { msg: string; runId: string; replayedSteps: number; ms: number };
      expect(entry).toMatchObject({ msg: "ratchet.replay", runId: id, replayedSteps: 3 });
      expect(entry.ms).toBeGreaterThanOrEqual(0);
    } finally {
      spy.mockRestore();
    }
    await finishAndCheck(id);
  });
});
