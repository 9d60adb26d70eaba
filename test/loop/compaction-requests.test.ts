// Compaction on demand: the caller asks for a compaction before a given model call
// (compactionRequests), or of a history no loop is running (compactNow, for a finished or waiting
// run). The summary kind runs one summary step whatever the prompt's size and keeps the newest turn
// whole; the native kind lowers the next call's trigger so the provider compacts at once.
import { describe, expect, it } from "vitest";
import { compactNow, REQUESTED_NATIVE_TRIGGER, runToolLoop, textOf } from "../../src/loop";
import { contextView, isSummaryRecord, summaryOf as recordOf } from "../../src/loop/context/context-view";
import { SUMMARY_SYSTEM } from "../../src/loop/context/compaction";
import type { ChatMessage, GenerateRequest, GenerateResult, LoopEvent, RunToolLoopOptions, StoredLoopEvent } from "../../src/loop";
import { memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "Echo three things." }];
const turns = [
  { text: "One.", toolCalls: [call("echo", { text: "one" }, "c1")], costUsd: 0.001 },
  { text: "Two.", toolCalls: [call("echo", { text: "two" }, "c2")], costUsd: 0.001 },
  { text: "Three.", toolCalls: [call("echo", { text: "three" }, "c3")], costUsd: 0.001 },
  { text: "done", costUsd: 0.001 },
];
const summaries = (requests: GenerateRequest[]) => requests.filter((request) => request.purpose === "summary");

function options(overrides: Partial<RunToolLoopOptions> = {}): Omit<RunToolLoopOptions, "generate" | "step"> {
  // atTokens far above anything these runs send: only a request compacts.
  return { model: "m", messages: user, tools: [echoTool()], minAnswerChars: 0, compaction: { mode: "summary", atTokens: 1_000_000 }, ...overrides };
}

describe("a compaction asked for before a model call", () => {
  it("summary: one summary step before that call, whatever the prompt's size, with the request's instructions; later requests start at the summary", async () => {
    const model = scriptedModel(turns);
    const journal = memoryJournal();
    const events: StoredLoopEvent[] = [];
    const result = await runToolLoop({
      ...options({ compactionRequests: [{ step: 3, instructions: "Keep every echoed word." }] }),
      generate: model.generate,
      step: journal.step,
      onStep: (event) => void (event.type === "compaction" && events.push(event)),
    });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 4 });
    expect([...journal.store.keys()]).toEqual(["model/1", "tool/1/c1", "model/2", "tool/2/c2", "compact/2/request/5", "model/3", "tool/3/c3", "model/4"]);
    const [summary] = summaries(model.requests);
    expect(summary!.system).toBe(`${SUMMARY_SYSTEM}\n\nKeep every echoed word.`);
    expect(events).toEqual([expect.objectContaining({ type: "compaction", mode: "summary", reason: "request", step: 2 })]);
    // The newest turn (turn 2 and its result) is kept whole; turn 1 is in the summary.
    const third = model.requests.filter((request) => request.purpose !== "summary")[2]!;
    expect(third.messages[0]!.role).toBe("user");
    expect(textOf(third.messages[0]!.content)).toMatch(/^Summary of turns 1–1 of this conversation/);
    expect(third.messages.slice(1, 3)).toMatchObject([{ role: "assistant", content: "Two." }, { role: "tool", toolCallId: "c2" }]);
    expect(result.messages.filter(isSummaryRecord)).toHaveLength(1);
  });

  it("a replay of the same journal sends nothing and gives the same result", async () => {
    const compactionRequests = [{ step: 3 }];
    const store = new Map<string, unknown>();
    const first = await runToolLoop({ ...options({ compactionRequests }), generate: scriptedModel(turns).generate, step: memoryJournal(store).step });
    const replay = scriptedModel(turns);
    expect(await runToolLoop({ ...options({ compactionRequests }), generate: replay.generate, step: memoryJournal(store).step })).toStrictEqual(first);
    expect(replay.requests).toEqual([]);
  });

  it("native: that call asks the provider to compact at once (the smallest trigger), with the request's instructions; the others as configured", async () => {
    const zero = { inputTokens: 10, outputTokens: 1, cachedReadTokens: 0, cachedWriteTokens: 0 };
    const requests: GenerateRequest[] = [];
    const answers: GenerateResult[] = [
      { message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "echo", input: { text: "one" } }] }, usage: zero, costUsd: 0.001, stopReason: "tool_use" },
      { message: { role: "assistant", content: "", providerBlocks: [{ type: "compaction", content: "One echo done." }] }, usage: { ...zero, inputTokens: 1_500 }, costUsd: 0.001, stopReason: "compaction" },
      { message: { role: "assistant", content: "Done." }, usage: zero, costUsd: 0.001, stopReason: "end_turn" },
    ];
    const events: LoopEvent[] = [];
    const result = await runToolLoop({
      ...options({ compaction: { mode: "native", atTokens: 150_000, instructions: "Own." }, compactionRequests: [{ step: 2, instructions: "Asked." }] }),
      generate: async (request) => {
        requests.push(structuredClone(request));
        return answers[requests.length - 1]!;
      },
      step: memoryJournal().step,
      onStep: (event) => void (event.type === "compaction" && events.push(event)),
    });
    expect(result).toMatchObject({ stoppedBy: "done", steps: 3 });
    expect(requests.map((request) => request.compaction)).toEqual([
      { atTokens: 150_000, instructions: "Own." },
      { atTokens: REQUESTED_NATIVE_TRIGGER, instructions: "Asked." },
      { atTokens: 150_000, instructions: "Own." },
    ]);
    expect(events).toEqual([expect.objectContaining({ type: "compaction", mode: "native", reason: "request", step: 2 })]);
    expect(requests.some((request) => request.purpose === "summary")).toBe(false);
  });

  it("compaction off: a request is ignored", async () => {
    const model = scriptedModel(turns);
    await runToolLoop({ ...options({ compaction: { mode: "off", atTokens: 1_000 }, compactionRequests: [{ step: 2 }] }), generate: model.generate, step: memoryJournal().step });
    expect(summaries(model.requests)).toEqual([]);
  });
});

describe("compactNow: a history no loop is running", () => {
  async function finished() {
    const journal = memoryJournal();
    const result = await runToolLoop({ ...options(), generate: scriptedModel(turns).generate, step: journal.step });
    return { result, journal };
  }

  it("writes one summary step under the journal, keyed after the calls made, and keeps the newest turn whole", async () => {
    const { result, journal } = await finished();
    const model = scriptedModel([]);
    const events: LoopEvent[] = [];
    const compacted = await compactNow({
      ...options(),
      messages: result.messages,
      generate: model.generate,
      step: journal.step,
      steps: result.steps,
      instructions: "Short.",
      onStep: (event) => events.push(event),
    });
    expect(compacted.compacted).toBe(true);
    expect(compacted.costUsd).toBeGreaterThan(0);
    expect(compacted.messages).toHaveLength(result.messages.length + 1);
    expect(journal.store.has(`compact/4/request/${result.messages.length}`)).toBe(true);
    expect(summaries(model.requests)[0]!.system).toContain("Short.");
    expect(events).toEqual([expect.objectContaining({ type: "compaction", reason: "request", mode: "summary", step: 4 })]);
    // What the next part of the run sends: the summary, then the newest turn ("done").
    const view = contextView([...compacted.messages, { role: "user", content: "And now?" }]);
    expect(view.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(view[1]).toEqual({ role: "assistant", content: "done" });
    // Again with nothing new: nothing to summarize, nothing written.
    const again = await compactNow({ ...options(), messages: compacted.messages, generate: model.generate, step: journal.step, steps: result.steps });
    expect(again).toMatchObject({ compacted: false, costUsd: 0 });
    expect(summaries(model.requests)).toHaveLength(1);
    // A replay of the same step reads it back.
    const replay = scriptedModel([]);
    const replayed = await compactNow({ ...options(), messages: result.messages, generate: replay.generate, step: journal.step, steps: result.steps, instructions: "Short." });
    expect(replayed.messages).toStrictEqual(compacted.messages);
    expect(replay.requests).toEqual([]);
  });

  it("a waiting history keeps the turn whose call waits whole, so its answer still follows its call", async () => {
    const asking = [...turns.slice(0, 2), { text: "Which?", toolCalls: [call("ask", { question: "Which?" }, "q")] }];
    const journal = memoryJournal();
    const waiting = await runToolLoop({ ...options({ tools: [echoTool(), askTool] }), generate: scriptedModel(asking).generate, step: journal.step });
    expect(waiting.stoppedBy).toBe("asked");
    const { messages } = await compactNow({ ...options(), messages: waiting.messages, generate: scriptedModel([]).generate, step: journal.step, steps: waiting.steps });
    const record = recordOf(messages.at(-1)!)!;
    expect(messages[record.keepFrom]).toMatchObject({ role: "assistant", toolCalls: [{ id: "q" }] });
    const view = contextView([...messages, { role: "tool", toolCallId: "q", content: "The first." }]);
    expect(view.slice(-2)).toMatchObject([{ role: "assistant", toolCalls: [{ id: "q" }] }, { role: "tool", toolCallId: "q" }]);
  });

  it("writes only the loop's own summary: native compaction needs a model call", async () => {
    await expect(compactNow({ ...options({ compaction: { mode: "native", atTokens: 1_000 } }), generate: scriptedModel([]).generate, step: memoryJournal().step, steps: 0 })).rejects.toThrow(/native/);
  });
});
