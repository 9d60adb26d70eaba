// Pools the per-pair ratios of several saved runs of `npm run bench:guardrails` (each run's output
// in a file: its "pair N: off X µs, on Y µs" lines under each comparison's name), for a figure
// steadier than one run's median: one run's median moves by 2–3 points from run to run on a shared
// machine (BENCHMARKS.md, issue 50).
//
//   for i in 1 2 3 4 5 6 7 8 9 10; do npm run --silent bench:guardrails > /tmp/guardrails-$i.txt; done
//   npm run --silent bench:pool -- /tmp/guardrails-*.txt
//
// For each comparison it prints the median of every pair's on/off ratio, their middle half, and a
// 95% interval of that median from resampling whole runs (a run's pairs share its minutes of the
// machine, so they are not independent of each other): 4,000 resamples, seeded, so the same files
// print the same figures.
// The ratios come from the printed µs a step (two decimals; one in outputs older than 2026-12-07
// 14:00 UTC, where a run's median here can differ from the bench's own by 0.1–0.2 point).
import { readFileSync } from "node:fs";
import { seededRandom } from "../test/helpers/seeded-random";
import { median, percentile } from "../test/e2e/support/stats";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("Usage: npm run bench:pool -- <saved output of bench:guardrails>...");
  process.exit(2);
}

const HEADER = /\] (.+?): \d+ pairs;/;
const PAIR = /pair \d+: off ([\d.]+) µs, on ([\d.]+) µs/;

/** Each comparison's runs: name → one list of on/off ratios per file. */
const comparisons = new Map<string, number[][]>();
for (const file of files) {
  let name: string | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const header = HEADER.exec(line);
    if (header !== null) {
      name = header[1]!;
      const runs = comparisons.get(name) ?? [];
      runs.push([]);
      comparisons.set(name, runs);
      continue;
    }
    const pair = PAIR.exec(line);
    if (pair !== null && name !== undefined) comparisons.get(name)!.at(-1)!.push(Number(pair[2]) / Number(pair[1]));
  }
}

const pct = (ratio: number, digits = 2) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(digits)}%`;

const RESAMPLES = 4000;
if (comparisons.size === 0) {
  console.error("No pairs found: give files holding the output of `npm run bench:guardrails`.");
  process.exit(1);
}
for (const [name, runs] of comparisons) {
  const all = runs.flat();
  // Seeded, so the same files print the same interval.
  const random = seededRandom(50);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const medians: number[] = [];
  for (let i = 0; i < RESAMPLES; i++) {
    const drawn: number[] = [];
    // Whole runs drawn again (with replacement), then each drawn run's pairs.
    for (let r = 0; r < runs.length; r++) {
      const run = pick(runs);
      for (let k = 0; k < run.length; k++) drawn.push(pick(run));
    }
    medians.push(median(drawn));
  }
  console.log(`[pool-pairs] ${name}: ${runs.length} runs, ${all.length} pairs; pooled median ${pct(median(all))} (middle half ${pct(percentile(all, 25))} to ${pct(percentile(all, 75))}); 95% interval of the median, runs resampled: ${pct(percentile(medians, 2.5))} to ${pct(percentile(medians, 97.5))}`);
  console.log(`[pool-pairs] ${name}: run medians ${runs.map((run) => pct(median(run), 1)).join(", ")}`);
}
