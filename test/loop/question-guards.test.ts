// The guards that watch one question — the repeated-call count and the doom-loop flag — count from
// the user message that asked it. A continue (a new user message) starts them afresh; an answer to
// an ask is part of the same question; a crash and replay inside a question count each call once.
import { describe, expect, it } from "vitest";
import { questionStart, runToolLoop, textOf } from "../../src/loop";
import type { AnyToolSpec, ChatMessage, RunToolLoopOptions, RunToolLoopResult } from "../../src/loop";
import { Crash, crashingJournal, memoryJournal } from "../helpers/journal";
import { askTool, call, echoTool, scriptedModel } from "../helpers/scripted";

const toolMessage = (messages: ChatMessage[], id: string) => messages.find((message) => message.role === "tool" && message.toolCallId === id);
const isRepeated = (messages: ChatMessage[], id: string) => textOf(toolMessage(messages, id)!.content).startsWith("repeated-call");

/** A chat: each question is one segment of the run (a new key prefix), continued from the last one's history. */
async function chat(questions: string[], turns: Parameters<typeof scriptedModel>[0], extra: Partial<RunToolLoopOptions> = {}) {
  const journal = memoryJournal();
  const model = scriptedModel(turns);
  const echo = echoTool("current_time");
  let messages: ChatMessage[] = [];
  let steps = 0;
  const results: RunToolLoopResult[] = [];
  for (const [n, question] of questions.entries()) {
    messages = [...messages, { role: "user", content: question }];
    const result = await runToolLoop({
      generate: model.generate,
      model: "m",
      messages,
      tools: [echo],
      maxSteps: 100,
      stepsBefore: steps,
      minAnswerChars: 0,
      step: (key, work) => journal.step(`s${n + 1}/${key}`, work),
      ...extra,
    });
    results.push(result);
    messages = result.messages;
    steps += result.steps;
  }
  return { results, messages, echo, model };
}

const timeTurn = (id: string) => ({ toolCalls: [call("current_time", { text: "{}" }, id)] });

describe("the question a guard counts in", () => {
  it("starts at the newest user message; answers to asks are tool messages and do not start one", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "", toolCalls: [{ id: "q", name: "ask", input: {} }] },
      { role: "tool", toolCallId: "q", content: "yes" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "second" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ask", input: {} }] },
      { role: "tool", toolCallId: "a", content: "no" },
    ];
    expect(questionStart(messages)).toBe(4);
    expect(questionStart(messages.slice(0, 4))).toBe(0);
    expect(questionStart([])).toBe(0);
  });
});

describe("repeated calls and doom loops, per question", () => {
  it("three continues that each call the same tool with the same input all run it", async () => {
    const turns = [timeTurn("t1"), { text: "It is noon." }, timeTurn("t2"), { text: "It is one." }, timeTurn("t3"), { text: "It is two." }];
    const { results, messages, echo } = await chat(["Time?", "And now?", "And now?"], turns);
    expect(echo.counter.calls).toEqual(["{}", "{}", "{}"]);
    for (const id of ["t1", "t2", "t3"]) expect(toolMessage(messages, id)).toMatchObject({ content: "echo: {}" });
    expect(results.map((result) => result.stoppedBy)).toEqual(["done", "done", "done"]);
    // Counted over the whole history (as before guards were per question), the third is refused.
    const wide = await chat(["Time?", "And now?", "And now?"], turns, { questionStart: 0 });
    expect(wide.echo.counter.calls).toEqual(["{}", "{}"]);
    expect(isRepeated(wide.messages, "t3")).toBe(true);
  });

  it("a doom loop in one question does not take the tools away in the next", async () => {
    const same = (id: string) => ({ toolCalls: [call("current_time", { text: "x" }, id)] });
    const turns = [same("a1"), same("a2"), same("a3"), same("a4"), { text: "Stuck; here is what I have." }, same("b1"), { text: "Done." }];
    const { results, model } = await chat(["Loop please.", "Once more."], turns);
    // Question 1: the fourth identical call makes the next call the last, with no callable tools.
    expect(model.requests.slice(0, 5).map((request) => request.toolChoice)).toEqual(["auto", "auto", "auto", "auto", "none"]);
    // Question 2 starts with every tool again, and its call runs.
    expect(model.requests[5]!.toolChoice).toBe("auto");
    expect(toolMessage(results[1]!.messages, "b1")).toMatchObject({ content: "echo: x" });
    expect(results[1]).toMatchObject({ stoppedBy: "done", finalText: "Done." });
    // Counted over the whole history, the doom loop would have made question 2's first call the last.
    const wide = await chat(["Loop please.", "Once more."], turns, { questionStart: 0 });
    expect(wide.model.requests[5]!.toolChoice).toBe("none");
  });

  it("an answer to an ask is part of the same question: the count goes on after it", async () => {
    const journal = memoryJournal();
    const echo = echoTool();
    const turns = [
      { toolCalls: [call("echo", { text: "x" }, "e1")] },
      { toolCalls: [call("echo", { text: "x" }, "e2"), call("ask", { question: "More?" }, "q")] },
      { toolCalls: [call("echo", { text: "x" }, "e3")] },
      { text: "That is all." },
    ];
    const base = { model: "m", tools: [echo, askTool] as AnyToolSpec[], minAnswerChars: 0 };
    const first = await runToolLoop({ ...base, generate: scriptedModel(turns).generate, messages: [{ role: "user", content: "go" }], step: journal.step });
    expect(first.stoppedBy).toBe("asked");
    const second = await runToolLoop({
      ...base,
      generate: scriptedModel(turns).generate,
      messages: [...first.messages, { role: "tool", toolCallId: "q", content: "Yes." }],
      stepsBefore: first.steps,
      step: (key, work) => journal.step(`s2/${key}`, work),
    });
    expect(echo.counter.calls).toEqual(["x", "x"]);
    expect(isRepeated(second.messages, "e3")).toBe(true);
  });

  it("a crash in the middle of a question keeps the count: replayed calls count once", async () => {
    const echo = echoTool();
    const turns = [
      { toolCalls: [call("echo", { text: "x" }, "e1")] },
      { toolCalls: [call("echo", { text: "x" }, "e2")] },
      { toolCalls: [call("echo", { text: "x" }, "e3")] },
      { text: "That is all." },
    ];
    const options = { model: "m", messages: [{ role: "user" as const, content: "go" }], tools: [echo], minAnswerChars: 0 };
    const store = new Map<string, unknown>();
    // Dies just after tool/2/e2 is stored (new steps: model/1, tool/1/e1, model/2, tool/2/e2).
    await expect(runToolLoop({ ...options, generate: scriptedModel(turns).generate, step: crashingJournal(store, { at: 3, where: "after-commit" }).step })).rejects.toBeInstanceOf(Crash);
    expect(echo.counter.calls).toEqual(["x", "x"]);
    const restarted = await runToolLoop({ ...options, generate: scriptedModel(turns).generate, step: memoryJournal(store).step });
    expect(echo.counter.calls).toEqual(["x", "x"]);
    expect(isRepeated(restarted.messages, "e3")).toBe(true);
    expect(store.has("reply/3/e3")).toBe(true);
    expect(restarted).toMatchObject({ stoppedBy: "done", finalText: "That is all." });
  });
});
