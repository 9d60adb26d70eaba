// Loop benchmarks, runtime-neutral: bench/loop.bench.test.ts runs them inside workerd (vitest pool),
// bench/loop-node.mjs bundles this file with esbuild and runs it in Node. No timed assertions:
// the figures are printed, only sanity checks (the run finished, nothing was called on a replay) throw.
import { z } from "zod";
import { runToolLoop } from "../src/loop";
import type { ChatMessage, Generate, GenerateResult, Step, StepOutput, ToolSpec } from "../src/loop";
import { createScriptedProvider, type ScriptedTurn } from "../src/providers/scripted/scripted";

export type Clock = {
  /** Milliseconds. */
  now(): number;
  /** Awaited before each clock read: a no-op where the clock runs during CPU work, an I/O boundary where it does not. */
  settle(): Promise<void>;
  /** What `settle` itself costs, subtracted from every figure (0 when settle is a no-op). */
  settleMs: number;
  describe: string;
};

export type Figures = {
  replayColdFirstMs: number;
  replayMedianMs: number;
  replayMinMs: number;
  perStep: { label: string; steps: number; medianMs: number; minMs: number }[];
};

const USER: ChatMessage[] = [{ role: "user", content: "Echo t0 … t999, one call per turn, then say done." }];
const TURN_COST = 0.0001;
const TOOL_COST = 0.00001;
const USAGE = { inputTokens: 1200, outputTokens: 40, cachedReadTokens: 1000, cachedWriteTokens: 100 };

function echo(): ToolSpec<{ text: string }> {
  return {
    name: "echo",
    description: "Echo the text back.",
    schema: z.object({ text: z.string() }),
    run: async ({ text }) => ({ content: `echo: ${text}`, costUsd: TOOL_COST }),
  };
}

/** A journal over a Map that stores values as they are (no clone): the loop's own overhead, not a store's. */
function mapJournal(store = new Map<string, unknown>()): { step: Step; store: Map<string, unknown>; fresh: () => number } {
  const signal = new AbortController().signal;
  let fresh = 0;
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
    if (store.has(key)) return store.get(key) as T;
    fresh++;
    const { value } = await work(signal);
    store.set(key, value);
    return value;
  };
  return { step, store, fresh: () => fresh };
}

/** A journal that clones every value into the Map, as a store that serializes would. */
function cloningJournal(store = new Map<string, unknown>()): { step: Step; store: Map<string, unknown> } {
  const signal = new AbortController().signal;
  const step: Step = async <T>(key: string, work: (signal: AbortSignal) => Promise<StepOutput<T>>): Promise<T> => {
    if (store.has(key)) return store.get(key) as T;
    const { value } = await work(signal);
    store.set(key, structuredClone(value));
    return value;
  };
  return { step, store };
}

/** n turns of one echo call each, then a text turn: n + 1 model calls. */
function precomputed(n: number): GenerateResult[] {
  const results: GenerateResult[] = [];
  for (let i = 0; i < n; i++) {
    results.push({
      message: { role: "assistant", content: "", toolCalls: [{ id: `c${i}`, name: "echo", input: { text: `t${i}` } }] },
      usage: USAGE,
      costUsd: TURN_COST,
      stopReason: "tool_use",
    });
  }
  results.push({ message: { role: "assistant", content: "done" }, usage: USAGE, costUsd: TURN_COST, stopReason: "end_turn" });
  return results;
}

/** A zero-latency generate: hands back the next precomputed result at once. */
function instantGenerate(n: number): Generate {
  const results = precomputed(n);
  let next = 0;
  return async () => {
    const result = results[next++];
    if (result === undefined) throw new Error("instant generate: no more results");
    return result;
  };
}

function scriptedTurns(n: number): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  // usage given, so the scripted provider does not stringify the whole request to count tokens.
  for (let i = 0; i < n; i++) turns.push({ toolCalls: [{ id: `c${i}`, name: "echo", input: { text: `t${i}` } }], usage: USAGE, costUsd: TURN_COST });
  turns.push({ text: "done", usage: USAGE, costUsd: TURN_COST });
  return turns;
}

const mustNotBeCalled: Generate = async () => {
  throw new Error("replay must not call generate");
};

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`bench sanity check failed: ${message}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(clock: Clock, body: () => Promise<void>): Promise<number> {
  await clock.settle();
  const start = clock.now();
  await body();
  await clock.settle();
  return Math.max(0, clock.now() - start - clock.settleMs);
}

const fmt = (ms: number, digits = 3) => ms.toFixed(digits);

export async function runLoopFigures(clock: Clock, log: (line: string) => void): Promise<Figures> {
  log(`[bench:loop] clock: ${clock.describe}`);

  // (a) Replay of a finished 1,000-step journal, cold: a fresh runToolLoop over the stored journal.
  const N = 1000;
  const built = mapJournal();
  const buildStart = clock.now();
  const reference = await runToolLoop({
    generate: instantGenerate(N),
    model: "bench",
    system: "Bench.",
    messages: USER,
    tools: [echo()],
    maxSteps: N + 1,
    step: built.step,
  });
  await clock.settle();
  check(reference.stoppedBy === "done" && reference.steps === N + 1, `build run finished (${reference.stoppedBy}, ${reference.steps} steps)`);
  check(built.store.size === 2 * N + 1, `journal holds ${built.store.size} steps`);
  log(`[bench:loop] built a journal of ${built.store.size} steps (${N + 1} model calls, ${N} tool runs) in ${fmt(clock.now() - buildStart - clock.settleMs, 1)} ms; spentUsd ${reference.spentUsd.toFixed(6)}`);
  // The stored form, as a durable store hands it back: a deep copy, made outside the timing.
  const stored = [...built.store.entries()];

  const replays: number[] = [];
  for (let run = 0; run < 8; run++) {
    const store = new Map(structuredClone(stored));
    const journal = mapJournal(store);
    let result: Awaited<ReturnType<typeof runToolLoop>> | undefined;
    const ms = await timed(clock, async () => {
      result = await runToolLoop({
        generate: mustNotBeCalled,
        model: "bench",
        system: "Bench.",
        messages: USER,
        tools: [echo()],
        maxSteps: N + 1,
        step: journal.step,
      });
    });
    check(result !== undefined && result.stoppedBy === "done" && result.steps === N + 1, "replay finished");
    check(journal.fresh() === 0, `replay ran ${journal.fresh()} new steps`);
    check(Math.abs(result!.spentUsd - reference.spentUsd) < 1e-9, "replay rebuilt spentUsd");
    check(result!.messages.length === reference.messages.length, "replay rebuilt the messages");
    replays.push(ms);
  }
  const [first, ...rest] = replays;
  const replayMedianMs = median(rest);
  const replayMinMs = Math.min(...rest);
  log(`[bench:loop] (a) replay of a finished ${2 * N + 1}-step journal (${N + 1} model calls): first ${fmt(first!, 1)} ms; next ${rest.length} runs median ${fmt(replayMedianMs, 1)} ms, min ${fmt(replayMinMs, 1)} ms (target < 50 ms)`);

  // (b) Loop overhead per new step: zero-latency generate and tool, an in-memory journal.
  const perStep: Figures["perStep"] = [];
  const variants: { label: string; generate: (n: number) => Generate; journal: () => { step: Step } }[] = [
    { label: "instant generate, Map journal", generate: instantGenerate, journal: () => mapJournal() },
    {
      label: "scripted provider, Map journal",
      generate: (n) => createScriptedProvider({ turns: scriptedTurns(n) }).generate,
      journal: () => mapJournal(),
    },
    { label: "instant generate, cloning journal", generate: instantGenerate, journal: () => cloningJournal() },
  ];
  for (const variant of variants) {
    for (const steps of [200, N]) {
      const runs = steps === N ? 5 : 7;
      const perTurn: number[] = [];
      for (let run = 0; run < runs; run++) {
        const journal = variant.journal();
        const generate = variant.generate(steps);
        let result: Awaited<ReturnType<typeof runToolLoop>> | undefined;
        const ms = await timed(clock, async () => {
          result = await runToolLoop({ generate, model: "bench", messages: USER, tools: [echo()], maxSteps: steps + 1, step: journal.step });
        });
        check(result !== undefined && result.stoppedBy === "done" && result.steps === steps + 1, `${variant.label} ${steps}-turn run finished`);
        perTurn.push(ms / (steps + 1));
      }
      const figure = { label: variant.label, steps, medianMs: median(perTurn), minMs: Math.min(...perTurn) };
      perStep.push(figure);
      log(
        `[bench:loop] (b) ${variant.label}, ${steps} turns (1 model call + 1 tool run each, ${runs} runs): ` +
          `per turn median ${fmt(figure.medianMs, 4)} ms, min ${fmt(figure.minMs, 4)} ms; ` +
          `per journal step median ${fmt(figure.medianMs / 2, 4)} ms (target < 0.2 ms)`,
      );
    }
  }
  return { replayColdFirstMs: first!, replayMedianMs, replayMinMs, perStep };
}
