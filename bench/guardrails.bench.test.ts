// Guardrail figures inside workerd (`npm run bench:guardrails`). Printed, never asserted.
// A step (a model call with one calculator call) with three data guardrails on each tool call
// (a regex, a deny list, a size limit) beside the same step with none; and issue 50's case, those
// three with every loop detector on (`loopGuards: {}`, the defaults) beside neither.
//
// How it is timed. Inside workerd the clock moves only at I/O and counts whole milliseconds, so a
// figure is only as good as the time it is taken over: a sample is RUNS runs of 501 steps each
// (made first, untimed), each run's slice timed from the test's side (to ±0.5 ms), about 300 ms in
// all, so the clock's part is under 0.5% of it. The "off" and "on" runs of a pair of samples take
// turns one run at a time (off on, on off, …), so a change of the machine's load moves both; the
// figure is the median of the per-pair ratios (with the middle half and the range). The load
// average is printed by the npm script before and after (workerd has none to read; BENCHMARKS.md).
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Guardrails, LoopGuards } from "../src/api/types";
import { runSlice } from "../src/durable/engine/engine";
import { Fanout } from "../src/durable/events/readers/fanout";
import type { RunObject } from "../src/durable/run/run-object";
import { createRun, journalKeys, viewOf, type RunStub } from "../test/helpers/runs";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
/** Tool steps a run (and one model call more, the answer). */
const STEPS = 500;
/** Runs a sample. */
const RUNS = 6;
const PAIRS = 21;

function script(turns: number) {
  const calls = Array.from({ length: turns }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.0001, usage: { inputTokens: 100, outputTokens: 10 } }));
  return [...calls, { text: "done", costUsd: 0.0001, usage: { inputTokens: 100, outputTokens: 10 } }];
}

const THREE: Guardrails = {
  tool: [
    { name: "no-shell", type: "regex", pattern: "rm\\s+-rf|sudo\\s", ignoreCase: true },
    { name: "no-secrets", type: "deny", words: ["password", "api_key", "BEGIN PRIVATE KEY"] },
    { name: "small", type: "size", maxChars: 2_000 },
  ],
};

/**
 * `loopGuards: "none"`: the run's loop has no detectors at all, which no body can ask for (every
 * run has the defaults): the engine is told so (EngineContext's withoutLoopGuards).
 */
type Setup = { guardrails?: Guardrails; loopGuards?: LoopGuards | "none" };

async function created({ loopGuards, ...setup }: Setup): Promise<RunStub> {
  const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, maxSteps: STEPS + 1, script: script(STEPS), ...setup, ...(loopGuards === undefined || loopGuards === "none" ? {} : { loopGuards }) });
  return stub;
}

async function slice(stub: RunStub, setup: Setup): Promise<void> {
  await runInDurableObject(typed(stub), async (_instance, state) => {
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 50_000, ...(setup.loopGuards === "none" ? { withoutLoopGuards: true as const } : {}) }, new AbortController());
  });
}

/** A run's slice, timed from the test's side (the clock reads the time the slice came back). */
async function timed(stub: RunStub, setup: Setup): Promise<number> {
  const started = performance.now();
  await slice(stub, setup);
  return performance.now() - started;
}

async function checked(stub: RunStub): Promise<void> {
  expect((await viewOf(stub)).status).toBe("finished");
  expect((await journalKeys(stub)).filter((key) => key.includes("/model/"))).toHaveLength(STEPS + 1);
}

type Sample = { off: number; on: number };

/**
 * One pair of samples: RUNS runs of each made first (untimed), then run one of each at a time,
 * the order swapped each time (off on, on off, …), so the two samples share the same minutes of
 * the machine. Each sample's time is the sum of its runs' (each run's time is to ±0.5 ms). Which
 * kind goes first after the runs are made (and so last before they are checked) takes turns from
 * pair to pair (`pair`), so neither kind is always the one after the making's garbage.
 */
async function pairOf(off: Setup, on: Setup, pair: number): Promise<Sample> {
  const offs: RunStub[] = [];
  const ons: RunStub[] = [];
  for (let i = 0; i < RUNS; i++) {
    offs.push(await created(off));
    ons.push(await created(on));
  }
  const total: Sample = { off: 0, on: 0 };
  for (let i = 0; i < RUNS; i++) {
    if ((i + pair) % 2 === 0) {
      total.off += await timed(offs[i]!, off);
      total.on += await timed(ons[i]!, on);
    } else {
      total.on += await timed(ons[i]!, on);
      total.off += await timed(offs[i]!, off);
    }
  }
  for (const stub of [...offs, ...ons]) await checked(stub);
  // Put away once checked, as the runtime puts an idle object away: the isolate's heap then holds
  // the runs of this pair, not every run the bench made (hundreds), whose marking each major
  // collection would add to whichever run it lands in.
  for (const stub of [...offs, ...ons]) await evictDurableObject(stub);
  return total;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pct = (ratio: number) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)}%`;
const log = (line: string) => console.log(`[bench:guardrails] ${line}`);

/** PAIRS pairs after one unmeasured pair (the isolate's code warm for both): the median of the per-pair ratios. */
async function compare(name: string, off: Setup, on: Setup): Promise<void> {
  await pairOf(off, on, 1);
  const pairs: Sample[] = [];
  for (let pair = 0; pair < PAIRS; pair++) pairs.push(await pairOf(off, on, pair));
  const perStep = (ms: number) => (ms * 1000) / (RUNS * (STEPS + 1));
  const ratios = pairs.map(({ off: a, on: b }) => b / a);
  const sorted = [...ratios].sort((x, y) => x - y);
  const totals = pairs.flatMap(({ off: a, on: b }) => [a, b]);
  log(`${name}: ${PAIRS} pairs; a sample is ${RUNS} runs × ${STEPS + 1} steps, ${Math.min(...totals).toFixed(0)}–${Math.max(...totals).toFixed(0)} ms (each run's ±0.5 ms of the clock: under ${((100 * Math.sqrt(RUNS) * 0.5) / Math.min(...totals)).toFixed(2)}% of a sample)`);
  log(`${name}: per step (model call + calculator call): off median ${perStep(median(pairs.map((p) => p.off))).toFixed(1)} µs, on median ${perStep(median(pairs.map((p) => p.on))).toFixed(1)} µs`);
  log(`${name}: on/off per pair: median ${pct(median(ratios))} (middle half ${pct(sorted[Math.floor(PAIRS / 4)]!)} to ${pct(sorted[Math.floor((3 * PAIRS) / 4)]!)}; range ${pct(sorted[0]!)} to ${pct(sorted[PAIRS - 1]!)})`);
  // Two decimals: bench/pool-pairs.ts (`npm run bench:pool`) pools these lines over several runs.
  pairs.forEach((p, i) => log(`    pair ${i + 1}: off ${perStep(p.off).toFixed(2)} µs, on ${perStep(p.on).toFixed(2)} µs, ${pct(ratios[i]!)}`));
}

describe("guardrail figures", () => {
  it("guardrails + loop guards: three data guardrails and every loop detector, beside neither (issue 50's case)", async () => {
    await compare("guardrails + loop guards", { loopGuards: "none" }, { guardrails: THREE, loopGuards: {} });
  });

  it("a step with three data guardrails on each tool call, beside the same step with none (both with the default loop detectors, as every run)", async () => {
    await compare("three data guardrails", {}, { guardrails: THREE });
  });
});
