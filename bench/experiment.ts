// Evals on recorded runs against `wrangler dev` on 127.0.0.1 (`npm run bench:experiment`, or
// `node bench/ts.mjs bench/experiment.ts [--cases 100] [--steps 20] [--plain 20] [--reports 10] [--concurrency 4] [--model-ms 0]
// [--local-observability off] [--checkout DIR]`). `--checkout DIR` measures another checkout (its src and config, e.g. main's, beside
// this one's: the same bench, so before and after are taken alike). `--local-observability off` starts wrangler dev with
// X_LOCAL_OBSERVABILITY=false: without its local trace collector, which records a span for every
// storage call (BENCHMARKS.md, "The step under local tracing"); a deployed Worker has none.
//
// `cases` runs are recorded, each of `steps` model calls (scripted, zero latency unless `model-ms` gives
// each call a delay, as a model's own time), every
// one but the last a calculator call with its own input, the last an answer. A dataset of them; then
// two experiments over it with a changed system prompt, in mode replay (every tool call answered from
// the recording), scored by the exact final text and a calculator call:
//
// 1. at concurrency 1, beside `plain` plain runs of the same script made one after another (half
//    before the experiment, half after): a case's time in the experiment is the time between two
//    consecutive `case-ended` events (all a case costs: preparing it, its fork, its run, the
//    outbox's word to the experiment, its scoring and divergence); a plain run's, from its create
//    request sent to its `end` event's commit. The evals' own work is the difference, given as a share
//    of a case's time. With a zero-latency model the model calls take no time, so everything a case
//    costs is Ratchet's; the issue's "Ratchet's own work under 10% of a case's time" is read as what
//    the experiment adds on top of a plain run of the same steps. The case run alone (its first event
//    to its end, tool calls answered from the recording) is given beside a plain run's own.
// 2. at `concurrency` (default 4, the experiments' default): cases per second, from the
//    `experiment-started` event to `experiment-ended` (both the object's own clock).
// 3. The comparison report of the second against the first (GET /v1/experiments/:id/comparison),
//    and against the recordings, each asked `reports` times; and the CSV export.
//
// Figures are printed, never asserted; a wrong outcome (a case not done, a score not 1, a tool call
// not answered from its recording) prints FAIL.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { createRun, request } from "../test/e2e/support/api";
import type { DevServer } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/http-server";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { readEventsUntilEnd } from "../test/e2e/support/sse";
import { watchRun } from "../test/e2e/support/run-watch";
import { median, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { withDevServer } from "./support/dev-bench";
import { verdict } from "./support/verdict";

const CASES = arg("cases", 100);
const STEPS = arg("steps", 20);
const PLAIN = arg("plain", 20);
const REPORTS = arg("reports", 10);
const CONCURRENCY = arg("concurrency", 4);
const MODEL_MS = arg("model-ms", 0);
const checkoutAt = process.argv.indexOf("--checkout");
const CHECKOUT = checkoutAt >= 0 ? process.argv[checkoutAt + 1] : undefined;
const observabilityAt = process.argv.indexOf("--local-observability");
if (observabilityAt >= 0) process.env.X_LOCAL_OBSERVABILITY = process.argv[observabilityAt + 1] === "off" ? "false" : "true";
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:experiment] ${line}`);
const failures: string[] = [];
const load = () => loadavg().map((value) => value.toFixed(2)).join(" ");

type Frame = { seq: number; type: string; at: string; n?: number; runId?: string; case?: { n: number; state: string; runId?: string; scores: { score: number | null }[]; divergence?: { fromRecording: number } } };

/** Recording `k`: `steps` model calls, each but the last a calculator call of its own input. */
function script(k: number) {
  const latency = MODEL_MS > 0 ? { delayMs: MODEL_MS } : {};
  const calls = Array.from({ length: STEPS - 1 }, (_v, i) => ({ text: `Step ${i + 1}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${k} + ${i}` } }], costUsd: 0.0001, ...latency }));
  return [...calls, { text: `Done ${k}.`, costUsd: 0.0001, ...latency }];
}

const runBody = (k: number) => ({ tools: ["calculator"], minAnswerChars: 0, maxSteps: STEPS + 5, budget: { usd: 0.05 }, messages: [{ role: "user", content: `Count with case ${k}.` }], script: script(k) });

async function json<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${what}: ${response.status} ${text.slice(0, 400)}`);
  return JSON.parse(text) as T;
}

/** A plain run of recording k's script, timed from the create request sent to its end's commit; and its own time (first event to end). */
async function plainRun(base: string, k: number): Promise<{ cycleMs: number; ownMs: number }> {
  const sentAt = Date.now();
  const run = await createRun(base, LOCAL_TOKEN, runBody(k));
  const events = await readEventsUntilEnd(`${base}/v1/runs/${run.id}/events`, run.token, 120_000);
  const end = events.at(-1)!.data;
  if (end.type !== "end" || end.status !== "finished") failures.push(`plain run ${run.id} ended ${JSON.stringify(end)}`);
  const at = (index: number) => Date.parse(String(events.at(index)!.data.at));
  return { cycleMs: at(-1) - sentAt, ownMs: at(-1) - at(0) };
}

/** Runs an experiment to its end; its events, as committed. */
async function experiment(dev: DevServer, dataset: string, concurrency: number): Promise<{ id: string; frames: Frame[] }> {
  const { experiment } = await json<{ experiment: { id: string } }>(
    await request(dev.url, "/v1/experiments", LOCAL_TOKEN, {
      method: "POST",
      body: JSON.stringify({ dataset, variant: { system: "Count briefly." }, mode: "replay", concurrency, budget: { usd: 10 }, scorers: [{ type: "exact" }, { type: "tool-called", tool: "calculator" }] }),
    }),
    "experiment",
  );
  const watch = watchRun({ base: dev.url, id: experiment.id, token: LOCAL_TOKEN, of: "experiments", deadlineMs: 1_800_000 });
  const frames = () => watch.events.map((event) => JSON.parse(event.text) as Frame);
  await watch.until(() => frames().some((frame) => frame.type === "experiment-ended"), 1_800_000, () => `experiment ${experiment.id} did not end:\n${dev.output().slice(-3000)}`);
  watch.close();
  const all = frames();
  const ended = all.filter((frame) => frame.type === "case-ended");
  if (ended.length !== CASES) failures.push(`experiment ${experiment.id}: ${ended.length} cases ended of ${CASES}`);
  for (const frame of ended) {
    const one = frame.case!;
    if (one.state !== "done" || one.scores.some((score) => score.score !== 1) || one.divergence?.fromRecording !== STEPS - 1) failures.push(`case ${one.n} of ${experiment.id}: ${JSON.stringify(one).slice(0, 300)}`);
  }
  return { id: experiment.id, frames: all };
}

const atOf = (frame: Frame | undefined) => Date.parse(String(frame?.at));

/** Median ms of `times` calls of GET `path`, and the size of its answer. */
async function timed(base: string, path: string, times: number): Promise<{ ms: number[]; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const response = await request(base, path, LOCAL_TOKEN);
    const text = await response.text();
    ms.push(performance.now() - started);
    if (response.status !== 200) failures.push(`${path}: ${response.status} ${text.slice(0, 300)}`);
    bytes = text.length;
  }
  return { ms, bytes };
}

/** The checkout measured: its commit, and whether its files differ from it. */
function checkoutOf(root: string): string {
  const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    return `${root} at ${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") === "" ? "" : " with uncommitted changes"}`;
  } catch {
    return `${root} (not a git checkout)`;
  }
}

function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(join("node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}, wrangler ${versionOf("wrangler")}, workerd ${versionOf("workerd")}`);
  log(`load average at start: ${load()}; checkout: ${checkoutOf(CHECKOUT ?? process.cwd())}; local observability: ${process.env.X_LOCAL_OBSERVABILITY === undefined ? "as wrangler starts it" : `X_LOCAL_OBSERVABILITY=${process.env.X_LOCAL_OBSERVABILITY}`}`);
  log(`${CASES} recorded cases of ${STEPS} steps (${STEPS - 1} calculator calls each), scripted model, ${MODEL_MS === 0 ? "zero latency" : `${MODEL_MS} ms a call`}`);
  await withDevServer({ name: "ratchet-experiment-bench-", port: PORT, ...(CHECKOUT === undefined ? {} : { root: CHECKOUT }) }, async (dev) => {
    // The recordings, four at a time.
    const recorded: string[] = new Array<string>(CASES);
    const recordStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < CASES) {
          const k = next++;
          const run = await createRun(dev.url, LOCAL_TOKEN, runBody(k));
          const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${run.id}/events`, run.token, 120_000);
          if (events.at(-1)?.data.status !== "finished") failures.push(`recording ${k} ended ${JSON.stringify(events.at(-1)?.data)}`);
          recorded[k] = run.id;
        }
      }),
    );
    log(`recorded ${CASES} runs in ${((performance.now() - recordStarted) / 1000).toFixed(1)} s (4 at a time)`);
    const dataset = `bench-${Date.now().toString(36)}`;
    await json(await request(dev.url, "/v1/datasets", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ name: dataset, cases: recorded.map((runId) => ({ runId, recordedReference: true })) }) }), "dataset");

    // 1. Concurrency 1, beside plain runs of the same scripts.
    const plain: { cycleMs: number; ownMs: number }[] = [];
    for (let i = 0; i < PLAIN / 2; i++) plain.push(await plainRun(dev.url, i));
    const serial = await experiment(dev, dataset, 1);
    for (let i = PLAIN / 2; i < PLAIN; i++) plain.push(await plainRun(dev.url, i));
    const endedAt = serial.frames.filter((frame) => frame.type === "case-ended").map(atOf);
    const cycles = endedAt.slice(1).map((at, i) => at - endedAt[i]!);
    const ownMs: number[] = [];
    // Where a case's time goes: the previous case-ended → this case-started (its preparation and fork),
    // case-started → its run's end (the run), its run's end → its case-ended (the outbox's word, the
    // experiment's alarm, scoring and divergence).
    const parts = { start: [] as number[], run: [] as number[], score: [] as number[] };
    const started = serial.frames.filter((one) => one.type === "case-started");
    for (const [index, frame] of started.entries()) {
      const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${frame.runId}/events`, LOCAL_TOKEN, 60_000);
      const runEnd = Date.parse(String(events.at(-1)!.data.at));
      ownMs.push(runEnd - Date.parse(String(events[0]!.data.at)));
      const caseEnded = serial.frames.find((one) => one.type === "case-ended" && one.case!.n === frame.n);
      if (index > 0) parts.start.push(atOf(frame) - endedAt[index - 1]!);
      parts.run.push(runEnd - atOf(frame));
      parts.score.push(atOf(caseEnded) - runEnd);
    }
    const plainCycle = median(plain.map((one) => one.cycleMs));
    const caseCycle = median(cycles);
    log(`load average after the serial experiment: ${load()}`);
    log(`plain run of a recording's script (create sent → end committed), ${plain.length} one after another: ${summary(plain.map((one) => one.cycleMs))}`);
    log(`  its own time (first event → end): ${summary(plain.map((one) => one.ownMs))}`);
    log(`experiment at concurrency 1, a case's time (case-ended → next case-ended), ${cycles.length} cases: ${summary(cycles)}`);
    log(`  the case run's own time (first event → end; ${STEPS - 1} tool calls answered from the recording): ${summary(ownMs)}`);
    log(`  a case / a plain run: ${(caseCycle / plainCycle).toFixed(2)}×; the evals' own work (a case's time beyond a plain run's): ${(caseCycle - plainCycle).toFixed(0)} ms, ${((100 * (caseCycle - plainCycle)) / caseCycle).toFixed(1)}% of a case's time (target under 10%)`);
    log(`  outside the case run (prepare, fork, outbox, scoring, divergence): ${(caseCycle - median(ownMs)).toFixed(0)} ms, ${((100 * (caseCycle - median(ownMs))) / caseCycle).toFixed(1)}% of a case's time`);
    if (MODEL_MS > 0) {
      const modelMs = STEPS * MODEL_MS;
      log(`  the model calls' own time: ${modelMs} ms of a case's ${caseCycle} ms; all the rest (Ratchet's work: the run's and the experiment's) ${(caseCycle - modelMs).toFixed(0)} ms, ${((100 * (caseCycle - modelMs)) / caseCycle).toFixed(1)}%`);
    }
    log(`  where it goes (medians): case-ended → next case-started (prepare, fork) ${median(parts.start)} ms; case-started → its run's end ${median(parts.run)} ms; run's end → case-ended (outbox, alarm, scoring, divergence) ${median(parts.score)} ms`);
    log(`  cases per second: ${((1000 * CASES) / (atOf(serial.frames.find((frame) => frame.type === "experiment-ended")) - atOf(serial.frames[0]))).toFixed(2)}`);

    // 2. Throughput at `concurrency`.
    const wide = await experiment(dev, dataset, CONCURRENCY);
    const wallMs = atOf(wide.frames.find((frame) => frame.type === "experiment-ended")) - atOf(wide.frames[0]);
    log(`load average after the concurrency-${CONCURRENCY} experiment: ${load()}`);
    log(`experiment at concurrency ${CONCURRENCY}: ${CASES} cases in ${(wallMs / 1000).toFixed(1)} s, ${((1000 * CASES) / wallMs).toFixed(2)} cases per second (${(wallMs / CASES).toFixed(0)} ms a case)`);

    // 3. The comparison report and the export.
    const against = await timed(dev.url, `/v1/experiments/${wide.id}/comparison?baseline=${serial.id}`, REPORTS);
    const recordings = await timed(dev.url, `/v1/experiments/${wide.id}/comparison?baseline=recordings`, REPORTS);
    const csv = await timed(dev.url, `/v1/experiments/${wide.id}/export?format=csv`, REPORTS);
    log(`comparison of ${CASES} cases against the other experiment (client request → whole answer, ${REPORTS} times): ${summary(against.ms)} (${(against.bytes / 1024).toFixed(0)} KiB) (target under 1 s)`);
    log(`comparison of ${CASES} cases against the recordings: ${summary(recordings.ms)} (${(recordings.bytes / 1024).toFixed(0)} KiB)`);
    log(`CSV export of ${CASES} cases: ${summary(csv.ms)} (${(csv.bytes / 1024).toFixed(0)} KiB)`);
    log(`load average at the end: ${load()}`);
  });
  verdict(failures, log, "OK");
}

await main();
