// The loop's step with every loop detector on vs off, in Node (`npm run bench:loop-guards`): the
// same N-step run (a scripted model call and a calculator-like tool call per step, every call and
// result different, so no detector trips: what is timed is the tracking every step pays) through
// runToolLoop with an in-memory journal, `loopGuards: {}` (the defaults every run has) against no
// loopGuards, alternated round by round with the order swapped each round, the load average noted.
// The loop alone is where the detectors run; bench:engine (1f) times the same inside the object,
// with its journal and events (a larger step, so a smaller share).
//
//   node bench/ts.mjs bench/loop-guards.ts [--steps 1000] [--rounds 21] [--guardrails]
//
// `--guardrails`: two more variants, issue 50's case: three data guardrails on each tool call (a
// regex, a deny list, a size limit), and those with every loop detector. Their verdicts are told
// as events here and nothing writes them: bench:guardrails times the step with its journal and events.
import { cpus, loadavg } from "node:os";
import { runToolLoop } from "../src/loop";
import type { RunToolLoopOptions, Step, ToolSpec } from "../src/loop/types";
import { createScriptedProvider } from "../src/providers/scripted/scripted";
import { arg } from "./support/args";
import { buildGuardrails } from "../src/tools/guardrails/build-guardrails";
import type { Guardrails } from "../src/api/types";

const log = (line: string) => console.log(`[bench:loop-guards] ${line}`);
const steps = arg("steps", 1000);
const rounds = arg("rounds", 21);

const tool: ToolSpec<{ n: number }> = {
  name: "lookup",
  description: "Looks a number up.",
  inputSchema: { type: "object", properties: { n: { type: "number" } } },
  validate: (input) => ({ ok: true, value: input as { n: number } }),
  run: async ({ n }) => `Entry ${n}: ${"details ".repeat(20)}${n * 7}`,
};

function script() {
  const turns = Array.from({ length: steps }, (_v, i) => ({ text: `Looking up entry ${i}.`, toolCalls: [{ id: `c${i}`, name: "lookup", input: { n: i } }], costUsd: 0.00001 }));
  return [...turns, { text: "Done looking up every entry.", costUsd: 0.00001 }];
}

type Variant = { name: string; tune: (options: RunToolLoopOptions) => void };
const VARIANTS: Variant[] = [
  { name: "off", tune: () => {} },
  { name: "loop guards on", tune: (options) => void (options.loopGuards = {}) },
];
const THREE: Guardrails = {
  tool: [
    { name: "no-shell", type: "regex", pattern: "rm\\s+-rf|sudo\\s", ignoreCase: true },
    { name: "no-secrets", type: "deny", words: ["password", "api_key", "BEGIN PRIVATE KEY"] },
    { name: "small", type: "size", maxChars: 2_000 },
  ],
};
/** The data kinds need neither of their deps. */
const dataOnly = () => buildGuardrails(THREE, { http: undefined as never, model: () => ({ problem: "none" }) });
if (process.argv.includes("--guardrails")) {
  VARIANTS.push({ name: "three data guardrails", tune: (options) => void (options.guardrails = dataOnly()) });
  VARIANTS.push({ name: "guardrails + loop guards", tune: (options) => void ((options.guardrails = dataOnly()), (options.loopGuards = {})) });
}

async function once(variant: Variant): Promise<number> {
  const turns = script();
  const store = new Map<string, unknown>();
  let count = 0;
  const step: Step = async (key, work) => {
    if (store.has(key)) return store.get(key) as never;
    count++;
    const { value } = await work(new AbortController().signal);
    store.set(key, value);
    return value;
  };
  const options: RunToolLoopOptions = {
    generate: createScriptedProvider({ turns }).generate,
    model: "m",
    messages: [{ role: "user", content: "Look every entry up." }],
    tools: [tool as ToolSpec<unknown>],
    maxSteps: steps + 1,
    minAnswerChars: 0,
    step,
  };
  variant.tune(options);
  const started = performance.now();
  const result = await runToolLoop(options);
  const ms = performance.now() - started;
  if (result.stoppedBy !== "done") throw new Error(`${variant.name}: stopped ${result.stoppedBy}`);
  return (ms * 1000) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
const loads: number[] = [];
log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}; ${steps} model steps a run (${steps * 2 + 1} journal steps), ${rounds} rounds after 3 of warm-up`);
for (let round = 0; round < rounds + 3; round++) {
  for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
    const perStep = await once(variant);
    if (round >= 3) figures.get(variant.name)!.push(perStep);
  }
  if (round >= 3) loads.push(loadavg()[0]!);
}
const offs = figures.get("off")!;
for (const variant of VARIANTS.slice(1)) {
  const ons = figures.get(variant.name)!;
  const ratios = ons.map((value, i) => value / offs[i]!);
  log(`${variant.name}: ${median(ons).toFixed(2)} µs per journal step vs off ${median(offs).toFixed(2)} µs; on/off per round median ${median(ratios).toFixed(3)}× (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); the detectors' own cost ${(median(ons) - median(offs)).toFixed(2)} µs per journal step`);
}
log(`load average (1 min) during the rounds: median ${median(loads).toFixed(2)} (range ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`);
