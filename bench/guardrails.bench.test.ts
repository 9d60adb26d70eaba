// Guardrail figures inside workerd (`npm run bench:guardrails`). Printed, never asserted.
// A step (a model call with one calculator call) with three data guardrails on each tool call
// (a regex, a deny list, a size limit) beside the same step with none; and issue 50's case, those
// three with every loop detector on (`loopGuards: {}`, the defaults) beside neither: runs of 500
// steps in one slice each, on and off alternated in the same process (the order swapped each pair)
// so that a change of the machine's load moves both; the median of the per-pair ratios, and the
// load average before and after (printed by the npm script: workerd has none to read; BENCHMARKS.md). The pool's clock runs in whole milliseconds, so each figure is over
// many steps.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Guardrails, LoopGuards } from "../src/api/types";
import { runSlice } from "../src/durable/engine/engine";
import { Fanout } from "../src/durable/events/readers/fanout";
import type { RunObject } from "../src/durable/run/run-object";
import { createRun, journalKeys, viewOf, type RunStub } from "../test/helpers/runs";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const STEPS = 500;

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

async function perStep({ loopGuards, ...setup }: Setup): Promise<number> {
  const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, maxSteps: STEPS + 1, script: script(STEPS), ...setup, ...(loopGuards === undefined || loopGuards === "none" ? {} : { loopGuards }) });
  const ms = await runInDurableObject(typed(stub), async (_instance, state) => {
    const started = performance.now();
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 50_000, ...(loopGuards === "none" ? { withoutLoopGuards: true as const } : {}) }, new AbortController());
    return performance.now() - started;
  });
  expect((await viewOf(stub)).status).toBe("finished");
  const keys = await journalKeys(stub);
  expect(keys.filter((key) => key.includes("/model/"))).toHaveLength(STEPS + 1);
  return ms / (STEPS + 1);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const log = (line: string) => console.log(`[bench:guardrails] ${line}`);

const PAIRS = 15;

/** `on` and `off` alternated, the order swapped each pair, after one unmeasured pair (the isolate's code warm for both). */
async function compare(name: string, off: Setup, on: Setup): Promise<void> {
  await perStep(off);
  await perStep(on);
  const offs: number[] = [];
  const ons: number[] = [];
  const ratios: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    let a: number;
    let b: number;
    if (pair % 2 === 0) {
      a = await perStep(off);
      b = await perStep(on);
    } else {
      b = await perStep(on);
      a = await perStep(off);
    }
    offs.push(a);
    ons.push(b);
    ratios.push(b / a);
  }
  log(`${name}: per step (model call + calculator call), ${STEPS + 1} steps a run, ${PAIRS} pairs: off median ${median(offs).toFixed(3)} ms, on median ${median(ons).toFixed(3)} ms`);
  log(`${name}: on/off per pair: median ${((median(ratios) - 1) * 100).toFixed(1)}% (range ${((Math.min(...ratios) - 1) * 100).toFixed(1)}% to ${((Math.max(...ratios) - 1) * 100).toFixed(1)}%)`);
  for (let i = 0; i < ratios.length; i++) log(`    pair ${i + 1}: off ${offs[i]!.toFixed(3)} ms, on ${ons[i]!.toFixed(3)} ms, ${((ratios[i]! - 1) * 100).toFixed(1)}%`);
}

describe("guardrail figures", () => {
  it("a step with three data guardrails on each tool call, beside the same step with none (both with the default loop detectors, as every run)", async () => {
    await compare("three data guardrails", {}, { guardrails: THREE });
  });

  it("guardrails + loop guards: three data guardrails and every loop detector, beside neither (issue 50's case)", async () => {
    await compare("guardrails + loop guards", { loopGuards: "none" }, { guardrails: THREE, loopGuards: {} });
  });
});
