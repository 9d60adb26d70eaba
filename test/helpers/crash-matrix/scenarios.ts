// The scripted conversations of the crash matrix (test/loop/crash-matrix.test.ts), each with the
// keys whose work its uninterrupted run does, in order, and how that run stops.
import type { AnyToolSpec, ChatMessage, RunToolLoopOptions, RunToolLoopResult } from "../../../src/loop";
import type { ScriptedTurn } from "../../../src/providers/scripted/scripted";
import { askTool, call } from "../scripted";
import { countingBoom, countingEcho, countingJob, countingSubmit, type Counters } from "./counting-tools";

export type Scenario = {
  name: string;
  messages: ChatMessage[];
  turns: ScriptedTurn[];
  tools: (c: Counters) => AnyToolSpec[];
  options?: Partial<Omit<RunToolLoopOptions, "generate" | "step" | "messages" | "tools" | "model">>;
  /** The keys whose work the uninterrupted run does, in order (journal.worked). */
  worked: string[];
  stoppedBy: RunToolLoopResult["stoppedBy"];
};

const user: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: "Please help." }] }];
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cachedReadTokens: 1, cachedWriteTokens: 2 });

export const scenarios: Scenario[] = [
  {
    name: "plain text answer",
    messages: user,
    turns: [{ text: "Hello there.", costUsd: 0.01, usage: usage(10, 3) }],
    tools: (c) => [countingEcho(c)],
    worked: ["model/1"],
    stoppedBy: "done",
  },
  {
    name: "two tool turns then text",
    messages: user,
    turns: [
      { text: "Looking.", toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.01, usage: usage(10, 5) },
      { toolCalls: [call("echo", { text: "b" }, "e2"), call("echo", { text: "c" }, "e3")], costUsd: 0.02, usage: usage(20, 6) },
      { text: "All done.", costUsd: 0.03, usage: usage(30, 7) },
    ],
    tools: (c) => [countingEcho(c)],
    worked: ["model/1", "tool/1/e1", "model/2", "tool/2/e2", "tool/2/e3", "model/3"],
    stoppedBy: "done",
  },
  {
    name: "start/wait tool",
    messages: user,
    turns: [
      { toolCalls: [call("job", { n: 1 }, "j1")], costUsd: 0.01 },
      { toolCalls: [call("job", { n: 2 }, "j2"), call("echo", { text: "x" }, "e1")], costUsd: 0.01 },
      { text: "Both jobs finished.", costUsd: 0.01 },
    ],
    tools: (c) => [countingJob(c), countingEcho(c)],
    worked: ["model/1", "start/1/j1", "wait/1/j1", "model/2", "start/2/j2", "wait/2/j2", "tool/2/e1", "model/3"],
    stoppedBy: "done",
  },
  {
    // Every start of a turn comes before any wait, so the jobs run at the same time.
    name: "two start/wait calls in one turn around a tool",
    messages: user,
    turns: [
      { toolCalls: [call("job", { n: 1 }, "j1"), call("echo", { text: "mid" }, "e1"), call("job", { n: 2 }, "j2")], costUsd: 0.01 },
      { text: "Both jobs finished.", costUsd: 0.01 },
    ],
    tools: (c) => [countingJob(c), countingEcho(c)],
    worked: ["model/1", "start/1/j1", "start/1/j2", "wait/1/j1", "tool/1/e1", "wait/1/j2", "model/2"],
    stoppedBy: "done",
  },
  {
    name: "an ask stops the loop after the other calls ran",
    messages: user,
    turns: [
      {
        text: "I need to know.",
        toolCalls: [
          call("echo", { text: "before" }, "e1"),
          call("ask", { question: "Which one?" }, "q1"),
          call("ask", { question: "And also?" }, "q2"),
          call("echo", { text: "after" }, "e2"),
        ],
        costUsd: 0.01,
      },
      { text: "never reached", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c), askTool],
    worked: ["model/1", "tool/1/e1", "reply/1/q2", "tool/1/e2"],
    stoppedBy: "asked",
  },
  {
    name: "a finish tool ends the run with its value",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "draft" }, "e1")], costUsd: 0.01 },
      { toolCalls: [call("submit", { answer: "42" }, "s1")], costUsd: 0.01 },
      { text: "never reached", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c), countingSubmit(c)],
    options: { finishTools: ["submit"] },
    worked: ["model/1", "tool/1/e1", "model/2", "tool/2/s1"],
    stoppedBy: "finish-tool",
  },
  {
    name: "a budget with finishAt makes the third call the last",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.3 },
      { toolCalls: [call("echo", { text: "b" }, "e2")], costUsd: 0.3 },
      { text: "Answer with what I have.", costUsd: 0.3 },
    ],
    tools: (c) => [countingEcho(c, 0)],
    options: { budget: { usd: 1, finishAt: 0.5 }, finishNote: "Budget nearly spent: answer now." },
    worked: ["model/1", "tool/1/e1", "model/2", "tool/2/e2", "model/3"],
    stoppedBy: "done",
  },
  {
    name: "a budget spent in the middle of a turn",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.3 },
      { toolCalls: [call("echo", { text: "b" }, "e2"), call("echo", { text: "c" }, "e3")], costUsd: 0.3 },
      { text: "never reached", costUsd: 0.3 },
    ],
    tools: (c) => [countingEcho(c, 0)],
    options: { budget: { usd: 0.5, spentUsd: 0.1 } },
    // tool/2/e2's work runs its budget check and throws BudgetExhausted: it is never stored.
    worked: ["model/1", "tool/1/e1", "model/2", "tool/2/e2"],
    stoppedBy: "budget",
  },
  {
    name: "maxSteps reached with tool calls on the last step",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.01 },
      { text: "One more.", toolCalls: [call("echo", { text: "b" }, "e2")], costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c)],
    options: { maxSteps: 2 },
    worked: ["model/1", "tool/1/e1", "model/2"],
    stoppedBy: "steps",
  },
  {
    // The scripted model ignores tool_choice "none", as some OpenAI-compatible servers do.
    name: "calls and no text on the last step: one more call with the tools left out",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.01 },
      { toolCalls: [call("echo", { text: "b" }, "e2")], costUsd: 0.01 },
      { text: "What I have: the echo said a.", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c)],
    options: { maxSteps: 2 },
    worked: ["model/1", "tool/1/e1", "model/2", "model/3"],
    stoppedBy: "steps",
  },
  {
    name: "a short answer after tool work gets one more call",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.01 },
      { text: "Now let me get the closed PRs too.", costUsd: 0.01 },
      { text: "The echo said a. That is the whole answer: nothing else was asked, and no other tool was needed for it.", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c)],
    options: { minAnswerChars: 100 },
    worked: ["model/1", "tool/1/e1", "model/2", "model/3"],
    stoppedBy: "done",
  },
  {
    // cache "none": the request's messages are not copied for cache marks (see the report: the
    // last step's finish note then lands in the loop's own history).
    name: "the last step with cache none",
    messages: user,
    turns: [
      { toolCalls: [call("echo", { text: "a" }, "e1")], costUsd: 0.01 },
      { text: "Final answer.", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c)],
    options: { maxSteps: 2, cache: "none" },
    worked: ["model/1", "tool/1/e1", "model/2"],
    stoppedBy: "done",
  },
  {
    name: "tool error, unknown tool, bad input and a repeated call",
    messages: user,
    turns: [
      {
        toolCalls: [call("boom", {}, "b1"), call("nope", { x: 1 }, "u1"), call("echo", { text: 5 }, "i1"), call("echo", { text: "r" }, "r1")],
        costUsd: 0.01,
      },
      { toolCalls: [call("echo", { text: "r" }, "r2")], costUsd: 0.01 },
      { toolCalls: [call("echo", { text: "r" }, "r3")], costUsd: 0.01 },
      { text: "I give up.", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c), countingBoom(c)],
    worked: ["model/1", "tool/1/b1", "reply/1/u1", "reply/1/i1", "tool/1/r1", "model/2", "tool/2/r2", "model/3", "reply/3/r3", "model/4"],
    stoppedBy: "done",
  },
  {
    name: "resume after an ask: the given turn's open call runs as turn 0",
    messages: [
      ...user,
      {
        role: "assistant",
        content: "Let me ask.",
        toolCalls: [
          { id: "q0", name: "ask", input: { question: "Which?" } },
          { id: "e0", name: "echo", input: { text: "pending" } },
        ],
      },
      { role: "tool", toolCallId: "q0", content: "The red one." },
    ],
    turns: [
      { toolCalls: [call("job", { n: 9 }, "j1")], costUsd: 0.01 },
      { text: "The red one is finished.", costUsd: 0.01 },
    ],
    tools: (c) => [countingEcho(c), countingJob(c), askTool],
    options: { budget: { usd: 5, spentUsd: 0.25 } },
    worked: ["tool/0/e0", "model/1", "start/1/j1", "wait/1/j1", "model/2"],
    stoppedBy: "done",
  },
];
