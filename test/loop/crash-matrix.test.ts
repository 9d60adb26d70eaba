// The crash matrix: for each scripted conversation, a process dies at every new step, in each of
// the three places a process can die (before the work, inside it, just after the commit), and a
// restart over the same store runs to the end. The restarted result must equal the uninterrupted
// one, and no model call or tool run may happen twice, except the one step whose work was cut off
// inside (at-least-once for the step in flight, exactly-once for every finished step).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../../src/loop";
import type {
  AnyToolSpec,
  ChatMessage,
  GenerateRequest,
  RunToolLoopOptions,
  RunToolLoopResult,
  ToolSpec,
} from "../../src/loop";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted";
import { Crash, crashingJournal, memoryJournal, type CrashPoint, type MemoryJournal } from "../helpers/journal";
import { askTool, call, scriptedModel } from "../helpers/scripted";

/** Every unit of outside work, by the step key it ran under (`model/<n>`, `tool/…`, `start/…`, `wait/…`). */
type Counters = { requests: GenerateRequest[]; works: string[] };

function counters(): Counters {
  return { requests: [], works: [] };
}

function countingEcho(c: Counters, costUsd = 0.001): ToolSpec<{ text: string }> {
  return {
    name: "echo",
    description: "Echo the text back.",
    schema: z.object({ text: z.string() }),
    run: async ({ text }, context) => {
      c.works.push(context.key);
      return { content: `echo: ${text}`, value: { text }, costUsd };
    },
  };
}

function countingBoom(c: Counters): ToolSpec<Record<string, never>> {
  return {
    name: "boom",
    description: "Always fails.",
    schema: z.object({}),
    run: async (_input, context) => {
      c.works.push(context.key);
      throw new Error("kaboom");
    },
  };
}

function countingJob(c: Counters): ToolSpec<{ n: number }> {
  return {
    name: "job",
    description: "A long outside job: start, then wait.",
    schema: z.object({ n: z.number().int() }),
    run: async () => {
      throw new Error("run must not be used when start and wait are given");
    },
    start: async ({ n }, context) => {
      c.works.push(context.key);
      return { handle: { jobId: `job-${n}` }, costUsd: 0.05 };
    },
    wait: async (handle, context) => {
      c.works.push(context.key);
      return { content: `finished ${(handle as { jobId: string }).jobId}`, value: handle, costUsd: 0.01 };
    },
  };
}

function countingSubmit(c: Counters): ToolSpec<{ answer: string }> {
  return {
    name: "submit",
    description: "Submit the final answer.",
    schema: z.object({ answer: z.string() }),
    run: async ({ answer }, context) => {
      c.works.push(context.key);
      return { content: `submitted ${answer}`, value: { answer, ok: true }, costUsd: 0.002 };
    },
  };
}

type Scenario = {
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

const scenarios: Scenario[] = [
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

const WHERE: CrashPoint["where"][] = ["before-work", "inside-work", "after-commit"];

function assistantsIn(messages: ChatMessage[]): number {
  return messages.filter((message) => message.role === "assistant").length;
}

/** One run with a fresh scripted model and fresh tools; outside work is counted into `c`. */
async function attempt(scenario: Scenario, journal: MemoryJournal, c: Counters): Promise<RunToolLoopResult> {
  const given = assistantsIn(scenario.messages);
  const model = scriptedModel(scenario.turns, given);
  const messages = structuredClone(scenario.messages);
  try {
    return await runToolLoop({
      // Short answers get one more call only in the scenario about them.
      minAnswerChars: 0,
      ...scenario.options,
      generate: model.generate,
      model: "test-model",
      system: "You are tested.",
      messages,
      tools: scenario.tools(c),
      step: journal.step,
    });
  } finally {
    for (const request of model.requests) {
      c.requests.push(request);
      // The n-th model call of this run sees the given assistants plus n - 1 of its own.
      c.works.push(`model/${assistantsIn(request.messages) - given + 1}`);
    }
  }
}

type Reference = { result: RunToolLoopResult; journal: MemoryJournal; counters: Counters };
const references = new Map<string, Promise<Reference>>();

function reference(scenario: Scenario): Promise<Reference> {
  let found = references.get(scenario.name);
  if (found === undefined) {
    found = (async () => {
      const journal = memoryJournal();
      const c = counters();
      const result = await attempt(scenario, journal, c);
      return { result, journal, counters: c };
    })();
    references.set(scenario.name, found);
  }
  return found;
}

const sorted = (list: string[]) => [...list].sort();
const isCounted = (key: string) => /^(model|tool|start|wait)\//.test(key);

describe("crash matrix", () => {
  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      it("uninterrupted: the reference run", async () => {
        const { result, journal, counters: c } = await reference(scenario);
        expect(result.stoppedBy).toBe(scenario.stoppedBy);
        expect(journal.worked).toEqual(scenario.worked);
        // Every counted work that was committed ran exactly once (a budget stop throws before the tool runs).
        expect(sorted(c.works)).toEqual(sorted(journal.worked.filter((key) => isCounted(key) && journal.store.has(key))));
        expect(new Set(c.works).size).toBe(c.works.length);
        // A replay of the finished journal does nothing new and gives the same result.
        const replay = memoryJournal(journal.store);
        const again = counters();
        const replayed = await attempt(scenario, replay, again);
        expect(replayed).toStrictEqual(result);
        expect(again.requests).toHaveLength(0);
        expect(again.works).toEqual([]);
        expect(replay.worked.filter((key) => journal.store.has(key))).toEqual([]);
      });

      for (const where of WHERE) {
        for (let at = 0; at < scenario.worked.length; at++) {
          const key = scenario.worked[at]!;
          it(`crash ${where} at new step ${at} (${key}), then restart`, async () => {
            const ref = await reference(scenario);
            const N = ref.journal.worked.length;
            expect(N).toBe(scenario.worked.length);
            const committed = ref.journal.store.has(key);

            const store = new Map<string, unknown>();
            const c = counters();
            const crashing = crashingJournal(store, { at, where });
            const outcome = await attempt(scenario, crashing, c).then(
              (result) => ({ ok: true as const, result }),
              (error: unknown) => ({ ok: false as const, error }),
            );
            if (committed || where === "before-work") {
              // The Crash passes through the loop unchanged.
              expect(outcome.ok).toBe(false);
              if (!outcome.ok) {
                expect(outcome.error).toBeInstanceOf(Crash);
                expect((outcome.error as Crash).where).toBe(`${where === "before-work" ? "before" : where === "inside-work" ? "inside" : "after"} ${key}`);
              }
            } else {
              // The step's own work throws (a budget stop) before the crash point: the loop stops as the reference did.
              expect(outcome).toEqual({ ok: true, result: ref.result });
            }
            // What the crashed process left: the reference's first keys, with the reference's values.
            const refKeys = [...ref.journal.store.keys()];
            const leftKeys = [...store.keys()];
            const expectedLeft = committed ? (where === "after-commit" ? at + 1 : at) : refKeys.length;
            expect(leftKeys).toEqual(refKeys.slice(0, expectedLeft));
            for (const left of leftKeys) expect(store.get(left)).toStrictEqual(ref.journal.store.get(left));

            // Restart with the same store.
            const restart = memoryJournal(store);
            const result = await attempt(scenario, restart, c);

            expect(result).toStrictEqual(ref.result);
            expect(result.stoppedBy).toBe(ref.result.stoppedBy);
            expect(result.finalText).toBe(ref.result.finalText);
            expect(result.final).toStrictEqual(ref.result.final);
            expect(result.asked).toStrictEqual(ref.result.asked);
            expect(result.messages).toStrictEqual(ref.result.messages);
            expect(result.spentUsd).toBe(ref.result.spentUsd);
            expect(result.steps).toBe(ref.result.steps);
            expect(result.usage).toStrictEqual(ref.result.usage);

            // The store ends exactly as the reference journal's.
            expect([...store.keys()]).toEqual(refKeys);
            for (const [k, value] of ref.journal.store) expect(store.get(k)).toStrictEqual(value);
            // The restart did only what the crashed process had not committed.
            expect(restart.worked).toEqual(ref.journal.worked.filter((k) => !leftKeys.includes(k)));
            // Costs and stored events: each committed once, across both processes.
            expect(new Map([...crashing.costs, ...restart.costs])).toEqual(ref.journal.costs);
            expect([...crashing.events, ...restart.events]).toStrictEqual(ref.journal.events);

            // Exactly once: every model call and tool run, except the step whose work was cut off inside.
            const interrupted = where === "inside-work" && committed && isCounted(key) ? [key] : [];
            expect(sorted(c.works)).toEqual(sorted([...ref.counters.works, ...interrupted]));
            const perKey = new Map<string, number>();
            for (const k of c.works) perKey.set(k, (perKey.get(k) ?? 0) + 1);
            for (const [k, count] of perKey) expect(count, k).toBeLessThanOrEqual(k === interrupted[0] ? 2 : 1);
            expect(c.requests).toHaveLength(ref.counters.requests.length + (interrupted[0]?.startsWith("model/") ? 1 : 0));
            // Requests are a pure function of the history: the restart sends what the reference sent.
            const refRequests = ref.counters.requests.map((request) => JSON.stringify(request));
            const seen = c.requests.map((request) => JSON.stringify(request));
            expect(new Set(seen)).toEqual(new Set(refRequests));

            // start/wait: start never runs twice once its commit happened.
            for (const startKey of scenario.worked.filter((k) => k.startsWith("start/"))) {
              const startIndex = scenario.worked.indexOf(startKey);
              const starts = perKey.get(startKey) ?? 0;
              const afterStartCommit = at > startIndex || (at === startIndex && where === "after-commit");
              if (afterStartCommit) expect(starts, `${startKey} after its commit`).toBe(1);
              expect(starts).toBe(at === startIndex && where === "inside-work" ? 2 : 1);
            }
          });
        }
      }
    });
  }
});
