// Loop benchmarks inside workerd: `npx vitest run --config vitest.bench.config.ts` (npm run bench:loop).
// Figures are printed; the only assertions are sanity checks (the runs finished, a replay called nothing).
//
// Clocks in workerd: a deployed Worker's Date.now() and performance.now() are frozen while code runs
// and move only across I/O (a Spectre mitigation). So this file first probes the clock: it burns CPU
// and looks whether performance.now() moved.
//   - It moved (what we see under the local vitest pool (@cloudflare/vitest-plugin): the clock runs, in whole
//     milliseconds): figures are read straight from performance.now(). With 1 ms resolution, every
//     figure is taken over a run of many steps, so the per-step error stays small.
//   - It did not move: before each clock read the bench awaits `new Promise(r => setTimeout(r, 0))`,
//     an I/O boundary after which the clock has caught up, and subtracts the measured cost of that
//     wait itself. The clock line of the output says which mode ran.
// bench/loop-node.mjs runs the same figures in Node (sub-millisecond clock) for comparison.
import { describe, expect, it } from "vitest";
import { runLoopFigures, type Clock } from "./loop-figures";

function burn(iterations: number): number {
  let x = 0;
  for (let i = 0; i < iterations; i++) x += Math.sqrt(i);
  return x;
}

const timerTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function probeClock(): Promise<Clock> {
  const start = performance.now();
  let sink = 0;
  for (let round = 0; round < 20 && performance.now() === start; round++) sink += burn(1_000_000);
  const burned = performance.now() - start;
  if (burned > 0) {
    // Resolution: the smallest step the clock takes.
    let resolution = Infinity;
    let last = performance.now();
    const until = last + 5;
    while (last < until) {
      const now = performance.now();
      if (now !== last) resolution = Math.min(resolution, now - last);
      last = now;
    }
    return {
      now: () => performance.now(),
      settle: async () => {},
      settleMs: 0,
      describe: `performance.now() advances during CPU work (resolution ${resolution} ms); read directly (sink ${sink > 0})`,
    };
  }
  const waits: number[] = [];
  for (let i = 0; i < 21; i++) {
    await timerTurn();
    const t0 = performance.now();
    await timerTurn();
    waits.push(performance.now() - t0);
  }
  waits.sort((a, b) => a - b);
  const settleMs = waits[10]!;
  return {
    now: () => performance.now(),
    settle: timerTurn,
    settleMs,
    describe: `performance.now() is frozen during CPU work; each read follows await setTimeout(0) (its own ${settleMs} ms subtracted)`,
  };
}

describe("loop bench (workerd)", () => {
  it("replay of a finished 1,000-step journal, and loop overhead per new step", async () => {
    const nav = (globalThis as unknown as { navigator: { userAgent: string; hardwareConcurrency?: number } }).navigator;
    console.log(`[bench:loop] runtime: workerd; navigator.userAgent ${JSON.stringify(nav.userAgent)}; hardwareConcurrency ${nav.hardwareConcurrency ?? "n/a"}`);
    const clock = await probeClock();
    const figures = await runLoopFigures(clock, (line) => console.log(line));
    expect(figures.replayMedianMs).toBeGreaterThanOrEqual(0);
    expect(figures.perStep).toHaveLength(6);
  });
});
