// Compaction in the loop: the summary step (threshold and overflow), the native kind (a provider's
// compaction turn), what later requests are built from, and that a replay rebuilds every request
// byte for byte while a crash repeats nothing that finished.
import { describe, expect, it } from "vitest";
import { ContextOverflowError, runToolLoop, textOf } from "../../src/loop";
import { contextView, isSummaryRecord, summaryRecord } from "../../src/loop/context/context-view";
import { SUMMARY_SYSTEM } from "../../src/loop/context/compaction";
import type { AssistantMessage, ChatMessage, GenerateRequest, GenerateResult, RunToolLoopOptions, StoredLoopEvent } from "../../src/loop";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted";
import { Crash, crashingJournal, memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "Echo five things, then say done." }];
const usage = (inputTokens: number) => ({ inputTokens, outputTokens: 10 });

/** Five echo turns of about 500 tokens each and an answer; the prompt grows past 3,000 tokens at the third call. */
function script(): ScriptedTurn[] {
  const words = (n: number) => `Echoing ${n}. ${"la ".repeat(600)}`;
  return [
    { text: words(1), toolCalls: [call("echo", { text: "one" }, "c1")], usage: usage(1_000), costUsd: 0.001 },
    { text: words(2), toolCalls: [call("echo", { text: "two" }, "c2")], usage: usage(2_000), costUsd: 0.001 },
    { text: words(3), toolCalls: [call("echo", { text: "three" }, "c3")], usage: usage(3_500), costUsd: 0.001 },
    { text: words(4), toolCalls: [call("echo", { text: "four" }, "c4")], usage: usage(1_500), costUsd: 0.001 },
    { text: words(5), toolCalls: [call("echo", { text: "five" }, "c5")], usage: usage(2_000), costUsd: 0.001 },
    { text: "done", usage: usage(2_500), costUsd: 0.001 },
  ];
}

function options(overrides: Partial<RunToolLoopOptions> = {}): Omit<RunToolLoopOptions, "generate" | "step"> {
  return { model: "m", messages: user, tools: [echoTool()], maxSteps: 20, minAnswerChars: 0, compaction: { mode: "summary", atTokens: 3_000 }, ...overrides };
}

const summaryOf = (requests: GenerateRequest[]) => requests.filter((request) => request.purpose === "summary");
const turnsOf = (requests: GenerateRequest[]) => requests.filter((request) => request.purpose !== "summary");

describe("summary compaction", () => {
  it("a prompt past atTokens is followed by one summary step; later requests start at the summary, the newest turns kept whole", async () => {
    const model = scriptedModel(script());
    const journal = memoryJournal();
    const events: StoredLoopEvent[] = [];
    const result = await runToolLoop({ ...options(), generate: model.generate, step: journal.step, onStep: (event) => void (event.type === "compaction" && events.push(event)) });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "done", steps: 6 });
    expect([...journal.store.keys()]).toEqual([
      "model/1", "tool/1/c1", "model/2", "tool/2/c2", "model/3", "tool/3/c3", "compact/3", "model/4", "tool/4/c4", "model/5", "tool/5/c5", "model/6",
    ]);
    // The summary call: the loop's own request, with the turns to summarize as text and no tools.
    const [summary] = summaryOf(model.requests);
    expect(summary).toMatchObject({ purpose: "summary", tools: [], system: SUMMARY_SYSTEM });
    expect(summary!.messages).toHaveLength(1);
    expect(JSON.stringify(summary!.messages[0]!.content)).toContain("Turn 1, the assistant said");
    // The request after it: the summary, then the newest turn verbatim (call and result together), then the rest.
    const after = turnsOf(model.requests)[3]!;
    expect(after.messages[0]).toMatchObject({ role: "user" });
    expect(textOf(after.messages[0]!.content)).toMatch(/^Summary of turns 1–2 of this conversation/);
    expect(after.messages.slice(1).map((message) => message.role)).toEqual(["assistant", "tool"]);
    expect(after.messages[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: "c3" }] });
    // The history keeps every turn, and the record of the compaction.
    expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(5);
    expect(result.messages.filter(isSummaryRecord)).toHaveLength(1);
    expect(events).toEqual([expect.objectContaining({ type: "compaction", mode: "summary", reason: "threshold", step: 3, tokensBefore: 3_500 })]);
    expect((events[0] as { tokensAfter: number }).tokensAfter).toBeLessThan(3_500);
    // The summary's cost counts toward the run's spend.
    expect(result.spentUsd).toBeGreaterThan(0.006);
  });

  it("a replay sends the same requests byte for byte, and calls nothing it finished", async () => {
    const first = scriptedModel(script());
    const journal = memoryJournal();
    const done = await runToolLoop({ ...options(), generate: first.generate, step: journal.step });
    const fresh = scriptedModel(script());
    const again = await runToolLoop({ ...options(), generate: fresh.generate, step: memoryJournal().step });
    expect(JSON.stringify(fresh.requests)).toBe(JSON.stringify(first.requests));
    const replay = scriptedModel(script());
    const replayed = await runToolLoop({ ...options(), generate: replay.generate, step: journal.step });
    expect(replay.requests).toEqual([]);
    expect(replayed.messages).toEqual(done.messages);
    expect(again.messages).toEqual(done.messages);
  });

  it("a crash at any point of the run, the compaction step included, repeats nothing that finished", async () => {
    const whole = await runToolLoop({ ...options(), generate: scriptedModel(script()).generate, step: memoryJournal().step });
    for (let at = 0; at < 12; at++) {
      for (const where of ["before-work", "inside-work", "after-commit"] as const) {
        const store = new Map<string, unknown>();
        const dying = scriptedModel(script());
        await expect(runToolLoop({ ...options(), generate: dying.generate, step: crashingJournal(store, { at, where }).step })).rejects.toBeInstanceOf(Crash);
        const restarted = scriptedModel(script());
        const result = await runToolLoop({ ...options(), generate: restarted.generate, step: memoryJournal(store).step });
        expect(result.messages, `${where} ${at}`).toEqual(whole.messages);
        // Only the step in flight at the crash (its work had begun) runs again.
        const total = dying.requests.length + restarted.requests.length;
        expect(total, `${where} ${at}`).toBeLessThanOrEqual(7 + (where === "inside-work" ? 1 : 0));
      }
    }
  });

  it("a summary call that gives no summary leaves the history as it was, and is not tried again before the next call", async () => {
    const model = scriptedModel(script());
    const emptySummary: typeof model.generate = async (request, context) =>
      request.purpose === "summary" ? { message: { role: "assistant", content: "" }, usage: { inputTokens: 1, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0 }, costUsd: 0, stopReason: "end_turn" } : model.generate(request, context);
    const journal = memoryJournal();
    const result = await runToolLoop({ ...options(), generate: emptySummary, step: journal.step });
    expect(result.messages.some(isSummaryRecord)).toBe(false);
    expect([...journal.store.keys()].filter((key) => key.startsWith("compact/"))).toEqual(["compact/3"]);
    expect(turnsOf(model.requests)[3]!.messages[0]).toEqual(user[0]);
  });
});

describe("overflow recovery", () => {
  /** Turn 3 is refused while its prompt is over `limit` tokens (about 4 characters a token). */
  function overflowing(limit: number): ScriptedTurn[] {
    const big = "x".repeat(4_000);
    return [
      { toolCalls: [call("echo", { text: `${big}1` }, "c1")], costUsd: 0.001 },
      { toolCalls: [call("echo", { text: `${big}2` }, "c2")], costUsd: 0.001 },
      { text: "done", costUsd: 0.001, overflowAbove: limit },
    ];
  }

  it("a 'prompt is too long' gets one compaction and one more try of that step", async () => {
    const model = scriptedModel(overflowing(2_000));
    const journal = memoryJournal();
    const events: StoredLoopEvent[] = [];
    const result = await runToolLoop({ ...options({ compaction: { mode: "summary", atTokens: 100_000 } }), generate: model.generate, step: journal.step, onStep: (event) => void (event.type === "compaction" && events.push(event)) });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "done", steps: 3 });
    expect([...journal.store.keys()]).toEqual(["model/1", "tool/1/c1", "model/2", "tool/2/c2", "compact/2/overflow", "model/3"]);
    expect(turnsOf(model.requests)).toHaveLength(4); // the third call twice: refused, then after the compaction
    expect(events).toEqual([expect.objectContaining({ reason: "overflow", mode: "summary" })]);
  });

  it("a second overflow ends the loop with the overflow error; with compaction off, the first does", async () => {
    await expect(runToolLoop({ ...options({ compaction: { mode: "summary", atTokens: 100_000 } }), generate: scriptedModel(overflowing(10)).generate, step: memoryJournal().step })).rejects.toBeInstanceOf(ContextOverflowError);
    const off = scriptedModel(overflowing(2_000));
    await expect(runToolLoop({ ...options({ compaction: { mode: "off", atTokens: 100_000 } }), generate: off.generate, step: memoryJournal().step })).rejects.toBeInstanceOf(ContextOverflowError);
    expect(summaryOf(off.requests)).toEqual([]);
  });
});

describe("native compaction", () => {
  const zero = { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0 };
  const compactionTurn: AssistantMessage = { role: "assistant", content: "", providerBlocks: [{ type: "compaction", content: "The person wants five echoes; two are done.", encrypted_content: "opaque" }] };

  it("the request asks the provider to compact; a compaction turn is continued with no user turn, counts as a call, and later requests start at it", async () => {
    const requests: GenerateRequest[] = [];
    const answers: GenerateResult[] = [
      { message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "echo", input: { text: "one" } }] }, usage: { ...zero, inputTokens: 100 }, costUsd: 0.001, stopReason: "tool_use" },
      { message: compactionTurn, usage: { ...zero, inputTokens: 5_000 }, costUsd: 0.002, stopReason: "compaction" },
      { message: { role: "assistant", content: "All done." }, usage: { ...zero, inputTokens: 200 }, costUsd: 0.001, stopReason: "end_turn" },
    ];
    const events: StoredLoopEvent[] = [];
    const result = await runToolLoop({
      ...options({ compaction: { mode: "native", atTokens: 4_000, instructions: "Keep the numbers." } }),
      generate: async (request) => {
        requests.push(structuredClone(request));
        return answers[requests.length - 1]!;
      },
      step: memoryJournal().step,
      onStep: (event) => void (event.type === "compaction" && events.push(event)),
    });
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "All done.", steps: 3 });
    expect(requests.map((request) => request.compaction)).toEqual([
      { atTokens: 4_000, instructions: "Keep the numbers." },
      { atTokens: 4_000, instructions: "Keep the numbers." },
      { atTokens: 4_000, instructions: "Keep the numbers." },
    ]);
    // After the compaction turn: it comes first, and nothing of the compacted turns is sent again.
    expect(requests[2]!.messages).toEqual([compactionTurn]);
    expect(result.messages).toHaveLength(5);
    expect(events).toEqual([expect.objectContaining({ type: "compaction", mode: "native", step: 2, tokensBefore: 5_000 })]);
    // The loop never runs its own summary call in native mode.
    expect(requests.some((request) => request.purpose === "summary")).toBe(false);
  });
});

describe("contextView", () => {
  const turn = (text: string): ChatMessage[] => [
    { role: "assistant", content: text, toolCalls: [{ id: text, name: "echo", input: {} }] },
    { role: "tool", toolCallId: text, content: `result ${text}` },
  ];
  const history: ChatMessage[] = [...user, ...turn("a"), ...turn("b"), ...turn("c")];

  it("is the history itself while nothing was compacted", () => {
    expect(contextView(history)).toBe(history);
  });

  it("after a summary record: the summary, the turns it kept, then what came after; records are never sent", () => {
    const compacted = [...history, summaryRecord("a and b happened", 5, 2), ...turn("d")];
    expect(contextView(compacted)).toEqual([
      { role: "user", content: expect.stringMatching(/^Summary of turns 1–2 of this conversation[\s\S]*a and b happened$/) },
      ...turn("c"),
      ...turn("d"),
    ]);
  });

  it("after a native compaction: from that turn on; a compaction that produced no summary cuts nothing", () => {
    const native: ChatMessage = { role: "assistant", content: "", providerBlocks: [{ type: "compaction", content: "summary" }] };
    const failed: ChatMessage = { role: "assistant", content: "", providerBlocks: [{ type: "compaction", content: null }] };
    expect(contextView([...history, native, ...turn("d")])).toEqual([native, ...turn("d")]);
    const withFailed = [...history, failed, ...turn("d")];
    expect(contextView(withFailed)).toBe(withFailed);
  });
});
