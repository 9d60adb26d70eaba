// Guardrail figures inside workerd (`npm run bench:guardrails`). Printed, never asserted.
// A step (a model call with one calculator call) with three data guardrails on each tool call
// (a regex, a deny list, a size limit) beside the same step with none: runs of 500 steps in one
// slice each, the two kinds alternated in the same process (ABAB…) so that a change of the
// machine's load moves both; the median of the per-pair ratios. Note the load average with it
// (BENCHMARKS.md): the pool's clock runs in whole milliseconds, so each figure is over many steps.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Guardrails } from "../src/api/types";
import { runSlice } from "../src/durable/engine/engine";
import { Fanout } from "../src/durable/events/fanout";
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

async function perStep(guardrails: Guardrails | undefined): Promise<number> {
  const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, maxSteps: STEPS + 1, script: script(STEPS), ...(guardrails === undefined ? {} : { guardrails }) });
  const ms = await runInDurableObject(typed(stub), async (_instance, state) => {
    const started = performance.now();
    await runSlice({ ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), sliceSteps: 50_000 }, new AbortController());
    return performance.now() - started;
  });
  expect((await viewOf(stub)).status).toBe("finished");
  const keys = await journalKeys(stub);
  expect(keys.filter((key) => key.includes("/model/"))).toHaveLength(STEPS + 1);
  return ms / (STEPS + 1);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const log = (line: string) => console.log(`[bench:guardrails] ${line}`);

describe("guardrail figures", () => {
  it("a step with three data guardrails on each tool call, beside the same step with none", async () => {
    // One pair first, unmeasured: the isolate's code warm for both.
    await perStep(undefined);
    await perStep(THREE);
    const off: number[] = [];
    const on: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < 7; round++) {
      const a = await perStep(undefined);
      const b = await perStep(THREE);
      off.push(a);
      on.push(b);
      ratios.push(b / a);
    }
    log(`per step (model call + calculator call), ${STEPS + 1} steps a run, 7 pairs: off median ${median(off).toFixed(3)} ms, on median ${median(on).toFixed(3)} ms`);
    log(`on/off per pair: median ${((median(ratios) - 1) * 100).toFixed(1)}% (range ${((Math.min(...ratios) - 1) * 100).toFixed(1)}% to ${((Math.max(...ratios) - 1) * 100).toFixed(1)}%)`);
    for (let i = 0; i < ratios.length; i++) log(`    pair ${i + 1}: off ${off[i]!.toFixed(3)} ms, on ${on[i]!.toFixed(3)} ms, ${((ratios[i]! - 1) * 100).toFixed(1)}%`);
  });
});
