import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import type { LoopEvent } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

describe("onStep events and the result", () => {
  it("reports step starts, text deltas, model steps, tool calls, tool results and the stop, in order", async () => {
    const events: LoopEvent[] = [];
    const journal = memoryJournal();
    const model = scriptedModel([{ text: "Let me look.", chunk: 5, toolCalls: [call("echo", { text: "hi" }, "e")], costUsd: 0.25, usage: { inputTokens: 10, outputTokens: 4 } }, { text: "Done", costUsd: 0.5, usage: { inputTokens: 20, outputTokens: 1, cachedReadTokens: 8 } }]);
    const result = await runToolLoop({ generate: model.generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [echoTool("echo", 0.125)], minAnswerChars: 0, step: journal.step, onStep: (event) => events.push(event) });
    expect(events.map((e) => e.type)).toEqual(["step-start", "text", "text", "text", "model", "tool-call", "tool-result", "step", "step-start", "text", "model", "step", "stop"]);
    expect(events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("")).toBe("Let me look.Done");
    expect(events[4]).toEqual({ type: "model", key: "model/1", step: 1, text: "Let me look.", toolCalls: [{ id: "e", name: "echo", input: { text: "hi" } }], usage: { inputTokens: 10, outputTokens: 4, cachedReadTokens: 0, cachedWriteTokens: 0 }, costUsd: 0.25, spentUsd: 0.25, stopReason: "tool_use" });
    expect(events[5]).toEqual({ type: "tool-call", key: "tool/1/e", step: 1, callId: "e", name: "echo", input: { text: "hi" } });
    expect(events[6]).toEqual({ type: "tool-result", key: "tool/1/e", step: 1, callId: "e", name: "echo", ok: true, summary: "echo: hi", costUsd: 0.125 });
    // The end of each step: the spend after the model call and its tool calls, tool costs included.
    expect(events[7]).toEqual({ type: "step", key: "model/1", step: 1, spentUsd: 0.375 });
    expect(events[10]).toMatchObject({ type: "model", spentUsd: 0.875 });
    expect(events[11]).toEqual({ type: "step", key: "model/2", step: 2, spentUsd: 0.875 });
    expect(events.at(-1)).toMatchObject({ type: "stop", stoppedBy: "done", spentUsd: 0.875, steps: 2 });
    expect(result).toEqual({
      stoppedBy: "done",
      finalText: "Done",
      messages: result.messages,
      spentUsd: 0.875,
      steps: 2,
      usage: { inputTokens: 30, outputTokens: 5, cachedReadTokens: 8, cachedWriteTokens: 0 },
    });
    // The stored events of each step are handed to the journal with the value.
    expect(journal.events.map((e) => `${e.type}:${e.key}`)).toEqual(["model:model/1", "tool-result:tool/1/e", "model:model/2"]);
  });

  it("a replay emits none of the steps' own events: only the ends of steps (the same again, for a caller that drops repeats by key) and the stop", async () => {
    const store = new Map<string, unknown>();
    const turns = [{ toolCalls: [call("echo", { text: "hi" }, "e")], costUsd: 0.5 }, { text: "Done", costUsd: 0.25 }];
    const first: LoopEvent[] = [];
    await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [echoTool("echo", 0.125)], minAnswerChars: 0, step: memoryJournal(store).step, onStep: (e) => first.push(e) });
    const events: LoopEvent[] = [];
    await runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [echoTool("echo", 0.125)], minAnswerChars: 0, step: memoryJournal(store).step, onStep: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual(["step", "step", "stop"]);
    expect(events.filter((e) => e.type === "step")).toEqual(first.filter((e) => e.type === "step"));
    expect(events[0]).toEqual({ type: "step", key: "model/1", step: 1, spentUsd: 0.625 });
  });

  it("a failed tool's result event carries ok false and the error", async () => {
    const events: LoopEvent[] = [];
    const boom = { ...echoTool("boom"), run: async () => { throw new Error("no disk"); } };
    await runToolLoop({ generate: scriptedModel([{ toolCalls: [call("boom", { text: "x" }, "b")] }, { text: "ok" }]).generate, model: "m", messages: [{ role: "user", content: "go" }], tools: [boom], step: memoryJournal().step, onStep: (e) => events.push(e) });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ ok: false, summary: "Tool error: no disk", error: "Tool error: no disk" });
  });
});
