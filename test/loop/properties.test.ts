// Property-based tests of the loop over random scripts: replay equivalence, a valid history,
// spend that adds up, and given messages left alone. Each turn of a script is text only or 1–3
// tool calls: an echo with a zod schema, an unknown tool, input that fails the schema, a repeat of
// an earlier call's exact input, a tool that throws, and (in some scripts) ask.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop } from "../../src/loop";
import type {
  AnyToolSpec,
  Budget,
  ChatMessage,
  GenerateRequest,
  ModelStepValue,
  RunToolLoopResult,
  ToolSpec,
} from "../../src/loop";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted";
import { memoryJournal, type MemoryJournal } from "../helpers/journal";
import { askTool, scriptedModel } from "../helpers/scripted";
import { addUsd } from "../../src/lib/money";

const NUM_RUNS = 150;

type CallGen =
  | { kind: "echo"; text: string }
  | { kind: "unknown"; name: string }
  | { kind: "invalid"; input: unknown }
  | { kind: "repeat"; pick: number }
  | { kind: "boom" }
  | { kind: "ask"; question: string };

type TurnGen = {
  text: string;
  calls: CallGen[];
  costUsd: number | null;
  usage: { inputTokens: number; outputTokens: number; cachedReadTokens: number } | null;
};

type Script = {
  turns: TurnGen[];
  maxSteps: number;
  budget: { usd: number; finishAt: number | null; spentUsd: number | null } | null;
  allowAsk: boolean;
  echoCost: number;
  given: number;
  cache: "auto" | "system" | "none" | null;
};

const cost = (max: number) => fc.double({ min: 0, max, noNaN: true, noDefaultInfinity: true });

const callGen: fc.Arbitrary<CallGen> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("echo" as const), text: fc.constantFrom("a", "b", "c", "long text") }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("unknown" as const), name: fc.constantFrom("nope", "search") }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("invalid" as const), input: fc.constantFrom<unknown>({ text: 5 }, {}, "text", null, { text: ["a"] }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("repeat" as const), pick: fc.nat(20) }), weight: 3 },
  { arbitrary: fc.constant({ kind: "boom" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("ask" as const), question: fc.constantFrom("Which?", "Why?") }), weight: 1 },
);

const turnGen: fc.Arbitrary<TurnGen> = fc.record({
  text: fc.constantFrom("", "Thinking.", "Here is my answer."),
  calls: fc.oneof(
    { arbitrary: fc.constant([] as CallGen[]), weight: 1 },
    { arbitrary: fc.array(callGen, { minLength: 1, maxLength: 3 }), weight: 3 },
  ),
  costUsd: fc.option(cost(0.4)),
  usage: fc.option(fc.record({ inputTokens: fc.nat(5000), outputTokens: fc.nat(500), cachedReadTokens: fc.nat(5000) })),
});

const scriptGen: fc.Arbitrary<Script> = fc.record({
  turns: fc.array(turnGen, { minLength: 0, maxLength: 9 }),
  maxSteps: fc.integer({ min: 1, max: 8 }),
  budget: fc.option(
    fc.record({
      usd: fc.double({ min: 0.05, max: 2, noNaN: true, noDefaultInfinity: true }),
      finishAt: fc.option(fc.double({ min: 0.1, max: 1, noNaN: true, noDefaultInfinity: true })),
      spentUsd: fc.option(cost(0.3)),
    }),
  ),
  allowAsk: fc.boolean(),
  echoCost: cost(0.1),
  given: fc.nat(3),
  cache: fc.constantFrom("auto" as const, "system" as const, "none" as const, null),
});

/** The given messages: four shapes, with 0 or 1 assistant turns before the run. */
function givenMessages(variant: number): ChatMessage[] {
  switch (variant) {
    case 0:
      return [{ role: "user", content: "Go." }];
    case 1:
      return [{ role: "user", content: [{ type: "text", text: "Go, with a caller's cache mark.", cache: true }] }];
    case 2:
      return [
        { role: "user", content: "First question." },
        { role: "assistant", content: "First answer." },
        { role: "user", content: [{ type: "text", text: "Second question." }] },
      ];
    default:
      return [
        { role: "user", content: "Echo something." },
        { role: "assistant", content: "Sure.", toolCalls: [{ id: "g1", name: "echo", input: { text: "a" } }] },
        { role: "tool", toolCallId: "g1", content: "echo: a" },
        { role: "user", content: "Go on." },
      ];
  }
}

type Built = {
  turns: ScriptedTurn[];
  tools: (runs: string[]) => AnyToolSpec[];
  budget?: Budget;
  cache?: "auto" | "system" | "none";
  given: ChatMessage[];
};

function build(script: Script): Built {
  const earlier: { name: string; input: unknown }[] = [];
  const turns = script.turns.map((turn): ScriptedTurn => {
    const out: ScriptedTurn = { text: turn.text };
    if (turn.costUsd !== null) out.costUsd = turn.costUsd;
    if (turn.usage !== null) out.usage = turn.usage;
    if (turn.calls.length > 0) {
      out.toolCalls = turn.calls.map((gen) => {
        let made: { name: string; input: unknown };
        switch (gen.kind) {
          case "echo":
            made = { name: "echo", input: { text: gen.text } };
            break;
          case "unknown":
            made = { name: gen.name, input: { q: 1 } };
            break;
          case "invalid":
            made = { name: "echo", input: gen.input };
            break;
          case "boom":
            made = { name: "boom", input: {} };
            break;
          case "ask":
            made = script.allowAsk ? { name: "ask", input: { question: gen.question } } : { name: "echo", input: { text: gen.question } };
            break;
          case "repeat": {
            const source = earlier[gen.pick % Math.max(1, earlier.length)];
            made = source === undefined ? { name: "echo", input: { text: "a" } } : { name: source.name, input: structuredClone(source.input) };
            break;
          }
        }
        earlier.push(made);
        return made as { name: string; input?: unknown };
      });
    }
    return out;
  });
  const tools = (runs: string[]): AnyToolSpec[] => {
    const echo: ToolSpec<{ text: string }> = {
      name: "echo",
      description: "Echo the text back.",
      schema: z.object({ text: z.string() }),
      run: async ({ text }, context) => {
        runs.push(context.key);
        return { content: `echo: ${text}`, value: { text }, costUsd: script.echoCost };
      },
    };
    const boom: ToolSpec<Record<string, never>> = {
      name: "boom",
      description: "Always fails.",
      schema: z.object({}),
      run: async (_input, context) => {
        runs.push(context.key);
        throw new Error("kaboom");
      },
    };
    return script.allowAsk ? [echo, boom, askTool] : [echo, boom];
  };
  const built: Built = { turns, tools, given: givenMessages(script.given) };
  if (script.budget !== null) {
    const budget: Budget = { usd: script.budget.usd };
    if (script.budget.finishAt !== null) budget.finishAt = script.budget.finishAt;
    if (script.budget.spentUsd !== null) budget.spentUsd = script.budget.spentUsd;
    built.budget = budget;
  }
  if (script.cache !== null) built.cache = script.cache;
  return built;
}

type Ran = { result: RunToolLoopResult; journal: MemoryJournal; requests: GenerateRequest[]; runs: string[] };

async function run(script: Script, built: Built, messages: ChatMessage[], store?: Map<string, unknown>): Promise<Ran> {
  const given = built.given.filter((message) => message.role === "assistant").length;
  const model = scriptedModel(built.turns, given);
  const runs: string[] = [];
  const journal = memoryJournal(store);
  const result = await runToolLoop({
    generate: model.generate,
    model: "m",
    system: "Test.",
    messages,
    tools: built.tools(runs),
    maxSteps: script.maxSteps,
    ...(built.budget === undefined ? {} : { budget: built.budget }),
    ...(built.cache === undefined ? {} : { cache: built.cache }),
    step: journal.step,
  });
  return { result, journal, requests: model.requests, runs };
}

/** result.messages is a history a provider accepts and the loop can resume from. */
function expectValidHistory(result: RunToolLoopResult, given: ChatMessage[]): void {
  expect(result.messages.slice(0, given.length)).toStrictEqual(given);
  // The run adds only its own turns: assistant messages and tool results (never a request-only note).
  for (const [i, message] of result.messages.slice(given.length).entries()) {
    expect(message.role, `new message ${i} is ${JSON.stringify(message)}`).not.toBe("user");
  }
  let open = new Set<string>();
  let lastTurn: { id: string; name: string }[] = [];
  for (const [i, message] of result.messages.entries()) {
    if (message.role === "assistant") {
      expect([...open], `calls still open before assistant message ${i}`).toEqual([]);
      lastTurn = message.toolCalls ?? [];
      open = new Set(lastTurn.map((call) => call.id));
      expect(open.size, "call ids of one turn are distinct").toBe(lastTurn.length);
    } else if (message.role === "tool") {
      // Answers a still-open call of the latest assistant turn: not unknown, not twice, not late.
      expect(open.has(message.toolCallId), `tool message ${i} answers ${message.toolCallId}, which is not open`).toBe(true);
      open.delete(message.toolCallId);
    } else {
      expect([...open], `user message ${i} while calls are open`).toEqual([]);
    }
  }
  if (result.stoppedBy === "asked") {
    expect(result.asked).toBeDefined();
    const asked = result.asked!;
    expect(lastTurn.map((call) => call.id)).toContain(asked.callId);
    expect(open.has(asked.callId), "the asked call stays open").toBe(true);
    if (asked.kind === "ask") expect(lastTurn.find((call) => call.id === asked.callId)?.name).toBe("ask");
  } else {
    expect(result.asked).toBeUndefined();
    expect([...open], `open calls at the end (stoppedBy ${result.stoppedBy})`).toEqual([]);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const config = { numRuns: NUM_RUNS };

describe("loop properties over random scripts", () => {
  it("(a) replay equivalence: the same store replays with no generate call, no tool run, and the same result", async () => {
    await fc.assert(
      fc.asyncProperty(scriptGen, async (script) => {
        const built = build(script);
        const first = await run(script, built, structuredClone(built.given));
        const keys = [...first.journal.store.keys()];
        const replay = await run(script, built, structuredClone(built.given), first.journal.store);
        expect(replay.requests).toHaveLength(0);
        expect(replay.runs).toEqual([]);
        expect(replay.result).toStrictEqual(first.result);
        expect([...replay.journal.store.keys()]).toEqual(keys);
        // Only a step whose work throws (a budget stop) may run its work again on a replay, and it stores nothing.
        expect(replay.journal.worked.filter((key) => replay.journal.costs.has(key))).toEqual([]);
        // And the first run did each model call and each tool run once.
        expect(first.requests).toHaveLength(first.result.steps);
        expect(new Set(first.runs).size).toBe(first.runs.length);
      }),
      config,
    );
  });

  it("(b) result.messages is always a valid history", async () => {
    await fc.assert(
      fc.asyncProperty(scriptGen, async (script) => {
        const built = build(script);
        const { result, journal } = await run(script, built, structuredClone(built.given));
        expectValidHistory(result, built.given);
        const newAssistants = result.messages.slice(built.given.length).filter((message) => message.role === "assistant");
        expect(newAssistants).toHaveLength(result.steps);
        // A tool-less call answered with calls and no text gets one more call with the tools left out: the one call past maxSteps.
        expect(result.steps).toBeLessThanOrEqual(script.maxSteps + 1);
        expect(["done", "finish-tool", "asked", "budget", "steps", "cancel"]).toContain(result.stoppedBy);
        if (!script.allowAsk) expect(result.stoppedBy).not.toBe("asked");
        if (built.budget === undefined) expect(result.stoppedBy).not.toBe("budget");
        const lastAssistant = result.messages.findLast((message) => message.role === "assistant");
        // Done: the last turn made no call, or (a tool-less call the model answered with calls anyway) none of its calls ran.
        if (result.stoppedBy === "done" && lastAssistant?.role === "assistant") {
          for (const made of lastAssistant.toolCalls ?? []) {
            expect(result.messages.find((message) => message.role === "tool" && message.toolCallId === made.id)).toMatchObject({ content: "Not run: this was the last step." });
          }
        }
        // The stored model values are the turns of result.messages, in order.
        const stored = [...journal.store.entries()].filter(([key]) => key.startsWith("model/")).map(([, value]) => (value as ModelStepValue).message);
        expect(stored).toStrictEqual(newAssistants);
      }),
      config,
    );
  });

  it("(c) spentUsd is the sum of the journal's step costs plus budget.spentUsd, and no model call starts over budget", async () => {
    await fc.assert(
      fc.asyncProperty(scriptGen, async (script) => {
        const built = build(script);
        const { result, journal } = await run(script, built, structuredClone(built.given));
        // Summed exactly in whole micro-dollars (src/lib/money.ts), whatever the costs' decimals.
        const expected = addUsd(...journal.costs.values(), built.budget?.spentUsd ?? 0);
        expect(result.spentUsd, `spentUsd ${result.spentUsd} vs ${expected}`).toBe(expected);
        // usage is the sum of the stored model steps' usage.
        const models = [...journal.store.entries()].filter(([key]) => key.startsWith("model/")).map(([, value]) => value as ModelStepValue);
        expect(result.usage.inputTokens).toBe(models.reduce((sum, value) => sum + value.usage.inputTokens, 0));
        expect(result.usage.outputTokens).toBe(models.reduce((sum, value) => sum + value.usage.outputTokens, 0));
        if (built.budget !== undefined) {
          for (const event of journal.events) {
            if (event.type !== "model") continue;
            const before = event.spentUsd - event.costUsd;
            // Within a micro-dollar: spends are whole micro-dollars, the generated costs are not.
            expect(before, `model call ${event.step} started at ${before} of ${built.budget.usd}`).toBeLessThan(built.budget.usd + 1e-6);
            if (built.budget.finishAt !== undefined && before >= built.budget.finishAt * built.budget.usd + 1e-6) {
              expect((journal.store.get(event.key) as ModelStepValue).last, `${event.key} after finishAt`).toBe(true);
            }
          }
        }
      }),
      config,
    );
  });

  it("(d) options.messages is never mutated, on a first run and on a replay", async () => {
    await fc.assert(
      fc.asyncProperty(scriptGen, async (script) => {
        const built = build(script);
        const messages = structuredClone(built.given);
        const before = structuredClone(messages);
        const first = await run(script, built, messages);
        expect(messages).toStrictEqual(before);
        expect(first.result.messages).not.toBe(messages);
        await run(script, built, messages, first.journal.store);
        expect(messages).toStrictEqual(before);
        // Frozen given messages work too, and give the same result.
        const frozen = deepFreeze(structuredClone(built.given));
        const again = await run(script, built, frozen);
        expect(again.result).toStrictEqual(first.result);
      }),
      config,
    );
  });
});
