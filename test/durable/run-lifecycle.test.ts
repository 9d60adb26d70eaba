import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import type { RunObject } from "../../src/durable/run/run-object";
import { createRun, drive, journalKeys, storedEvents, valueOf, viewOf } from "../helpers/runs";

describe("a run in its Durable Object", () => {
  it("creation stores the run, logs run-started and sets an alarm; alarms run it to the end", async () => {
    const { stub } = await createRun({
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [{ text: "Let me add.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+3" } }], costUsd: 0.01 }, { text: "It is 5.", costUsd: 0.02 }],
    });
    expect(await viewOf(stub)).toMatchObject({ status: "running", steps: 0, lastSeq: 1 });
    await drive(stub);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "It is 5.", steps: 2 });
    expect(view.spentUsd).toBeCloseTo(0.03, 10);
    const events = await storedEvents(stub);
    expect(events.map((e) => e.type)).toEqual(["run-started", "step-start", "model", "tool-call", "tool-result", "step", "step-start", "model", "step", "end"]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events[4]).toMatchObject({ type: "tool-result", ok: true, summary: "5", step: 1 });
    expect(events[5]).toMatchObject({ type: "step", step: 1, spentUsd: 0.01 });
    expect(events.at(-1)).toMatchObject({ type: "end", status: "finished", stoppedBy: "done", finalText: "It is 5.", steps: 2 });
    expect(events.at(-1)).not.toHaveProperty("shortAnswer");
    expect(view.lastSeq).toBe(10);
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2"]);
    const messages = await stub.messages();
    expect(messages.ok && messages.value.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});

describe("messages of a run still running", () => {
  it("are the given messages and every finished turn so far, read from the journal without calling anything", async () => {
    const { stub } = await createRun({
      tools: ["calculator"],
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { toolCalls: [{ id: "c2", name: "calculator", input: { expression: "2+2" } }] }, { text: "done" }],
    });
    await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 3 }, new AbortController());
    });
    const messages = valueOf(await stub.messages()).messages;
    expect(messages.map((m) => (m.role === "tool" ? `tool:${m.content}` : m.role))).toEqual(["user", "assistant", "tool:2", "assistant"]);
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2"]);
  });
});
