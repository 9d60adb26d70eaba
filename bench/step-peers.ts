// Ratchet's step beside its peers, in one sitting (`npm run bench:step-peers`): the same N
// zero-latency agent steps (a scripted model call and a calculator call each) as
//   - bare:   one SQLite Durable Object writing a journal row and an event row per result, each
//             write awaited with a sync;
//   - floor:  the same object leaving its writes to coalesce (nothing durable in one object is
//             cheaper: "the no-sync floor");
//   - flow:   a Cloudflare Workflow with two step.do per agent step (what a user would pick instead);
//   - ratchet: a run of this checkout, timed from the client as a user sees it (POST /v1/runs →
//             GET /v1/runs/:id says finished, asked every 5 ms);
//   - before: the same run on a second checkout (`--before <path>`, with its own node_modules and
//             so its own wrangler), so before and after run alternately in one sitting; the flag
//             may be given again (before2, before3, …), say for an older runtime beside both.
// Each under its own `wrangler dev` (the peers under this checkout's wrangler: the ratios only hold
// within one runtime), in alternating rounds, with the machine's load noted each round. It prints
// the medians, the ratios (Ratchet / floor, Workflows / Ratchet, before / after: of the medians and
// round by round), what one storage call costs in this runtime, the CPU each Ratchet's server used
// per run (a figure a shared machine's load moves far less than wall time), and a timeline of each
// Ratchet run (POST, first step, last step, seen finished) with the gaps where one slice hands over
// to the next; under local observability also the server's side of it, from wrangler's local trace
// store (support/trace-store.ts): when the POST was handled, when the alarm fired and ended, when
// the GET that saw the run finished was read and answered, and each hand-over between alarms.
//
//   node bench/ts.mjs bench/step-peers.ts [--steps 200] [--rounds 5] [--before <checkout>]
//     [--local-observability on|off] [--timeline-steps 600]
//
// `--local-observability off` starts every server with X_LOCAL_OBSERVABILITY=false: wrangler's
// local trace collector (on by default since miniflare 5) records a span for every storage call,
// and that, not the step, is most of what a step costs under `wrangler dev` (BENCHMARKS.md).
import { readFileSync, readdirSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { arg } from "./support/args";
import { sleep } from "./support/poll";
import { readStoredLog } from "../test/e2e/support/api";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/http-server";
import { parseDevVars } from "../test/e2e/support/local-vars";
import { invocationsBetween, traceStoreOf, type Invocation } from "./support/trace-store";

const log = (line: string) => console.log(`[bench:step-peers] ${line}`);
// The checkout the bench is run from (npm runs scripts at the project's root).
const ROOT = process.cwd();
const steps = arg("steps", 200);
const rounds = arg("rounds", 5);
const timelineSteps = arg("timeline-steps", 600);
const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
/** Every value of a repeatable `--name value`. */
const options = (name: string): string[] => process.argv.flatMap((value, i) => (process.argv[i - 1] === `--${name}` ? [value] : []));
const befores = options("before");
const observability = option("local-observability");
if (observability === "off") process.env.X_LOCAL_OBSERVABILITY = "false";
if (observability === "on") process.env.X_LOCAL_OBSERVABILITY = "true";

/** The version of `name` a checkout runs: wrangler's own copy of a package first (it may nest one). */
function version(checkout: string, name: string): string {
  for (const path of [`node_modules/wrangler/node_modules/${name}/package.json`, `node_modules/${name}/package.json`]) {
    const file = join(checkout, path);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "?";
}

const runtimeOf = (checkout: string) => `wrangler ${version(checkout, "wrangler")}, workerd ${version(checkout, "workerd")}`;
/**
 * CPU ms (user and system) used so far by the processes of process group `pgid` (a `wrangler dev`:
 * its node processes and workerd), from /proc; 0 where there is no /proc.
 */
function cpuMsOf(pgid: number): number {
  if (!existsSync("/proc")) return 0;
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // After the command's closing parenthesis: state, ppid, pgrp (3rd), …, utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  // The kernel's clock ticks: 100 a second on Linux.
  return ticks * 10;
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(" ");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Ratchet = { name: string; checkout: string; snapshot: Snapshot; server?: DevServer; persistTo?: string };

function script(n: number) {
  const turns = Array.from({ length: n }, (_v, i) => ({ text: "", toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} * 2` } }] }));
  return [...turns, { text: "done" }];
}

type Timed = { ms: number; timeline: Timeline };
/** Wall-clock times (ms since the epoch) of one run: the client's and the object's own (its events' `at`). */
type Timeline = { posted: number; created: number; createdAt: number; firstAt: number; commitAts: number[]; endAt: number; seen: number };

/** One run of `n` agent steps on `base`, create → seen finished, and its timeline. */
async function ratchetRun(base: string, n: number): Promise<Timed> {
  const headers = { authorization: "Bearer dev-token", "content-type": "application/json" };
  const posted = Date.now();
  const started = performance.now();
  const response = await fetch(`${base}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "go" }], tools: ["calculator"], maxSteps: n + 5, script: script(n) }) });
  const created = Date.now();
  const body = (await response.json()) as { run: { id: string; createdAt: string }; token: string };
  if (response.status !== 201) throw new Error(`POST /v1/runs: ${response.status} ${JSON.stringify(body)}`);
  for (;;) {
    const view = (await (await fetch(`${base}/v1/runs/${body.run.id}`, { headers: { authorization: `Bearer ${body.token}` } })).json()) as { status: string };
    if (view.status === "finished") {
      const ms = performance.now() - started;
      const seen = Date.now();
      const events = (await readStoredLog(base, body.run.id, body.token, 120_000)).map((text) => JSON.parse(text) as { type: string; at: string });
      const at = (event: { at: string } | undefined) => (event === undefined ? Number.NaN : Date.parse(event.at));
      // A journal step's commit stores its result event: the model's answer, or the tool's result.
      const commitAts = events.filter((event) => event.type === "model" || event.type === "tool-result").map(at);
      return { ms, timeline: { posted, created, createdAt: Date.parse(body.run.createdAt), firstAt: at(events[0]), commitAts, endAt: at(events.findLast((event) => event.type === "end")), seen } };
    }
    if (view.status !== "running") throw new Error(`run ${body.run.id} ended ${JSON.stringify(view)}`);
    await sleep(5);
  }
}

async function peer(base: string, path: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}${path}`);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  await response.json();
  return performance.now() - started;
}

function timelineLines(name: string, timelines: Timeline[]): string[] {
  const m = (pick: (t: Timeline) => number) => median(timelines.map(pick)).toFixed(1).padStart(7);
  const journalSteps = timelines[0]!.commitAts.length;
  return [
    `${name}: timeline of a run, ms from the POST (medians of ${timelines.length} runs; client clock, the object's event times)`,
    `    ${m((t) => t.created - t.posted)}  201 Created at the client`,
    `    ${m((t) => t.createdAt - t.posted)}  run stored (its createdAt); its alarm is set for now`,
    `    ${m((t) => t.firstAt - t.posted)}  first event (step 1 starts: the alarm fired, the slice began)`,
    `    ${m((t) => t.endAt - t.posted)}  last event (end): ${journalSteps} journal steps committed, ${m((t) => ((t.endAt - t.firstAt) / journalSteps) * 1000)} µs each in the object`,
    `    ${m((t) => t.seen - t.posted)}  GET /v1/runs/:id seen finished at the client (${m((t) => t.seen - t.endAt)} ms after the last event)`,
  ];
}

/** A run's invocations as the server's trace store kept them: its POST, its alarms, the GET that saw it finished (once written). */
type ServerSide = { post: Invocation; alarms: Invocation[]; get?: Invocation };

function serverSide(store: string, timeline: Timeline): ServerSide | undefined {
  const invocations = invocationsBetween(store, timeline.posted - 2, timeline.seen + 2);
  const post = invocations.find((call) => call.name === "POST");
  const alarms = invocations.filter((call) => call.name === "alarm");
  const get = invocations.findLast((call) => call.name === "GET");
  if (post === undefined || alarms.length === 0) return undefined;
  return get === undefined ? { post, alarms } : { post, alarms, get };
}

/** Where the time between the POST and the client's "finished" goes on the server (one slice). */
function serverLines(name: string, pairs: { timeline: Timeline; side: Required<ServerSide> }[]): string[] {
  if (pairs.length === 0) return [`${name}: no trace store (local observability off): no server-side timeline`];
  const m = (pick: (t: Timeline, s: Required<ServerSide>) => number) => median(pairs.map(({ timeline, side }) => pick(timeline, side))).toFixed(1).padStart(7);
  const n = (pick: (s: Required<ServerSide>) => number) => median(pairs.map(({ side }) => pick(side))).toFixed(0);
  const last = (s: ServerSide) => s.alarms.at(-1)!;
  return [
    `${name}: the server's side (wrangler's local trace store), ms from the POST (medians of ${pairs.length} runs)`,
    `    ${m((t, s) => s.post.start - t.posted)}  POST read by the Worker; answered at ${m((t, s) => s.post.end - t.posted).trim()} (${n((s) => s.post.storageCalls)} calls into storage, ${n((s) => s.post.subrequests)} to objects and services)`,
    `    ${m((t, s) => s.alarms[0]!.start - t.posted)}  alarm fired; its last call into storage at ${m((t, s) => last(s).lastStorageEnd - t.posted).trim()}, its end at ${m((t, s) => last(s).end - t.posted).trim()} (${n((s) => s.alarms.reduce((sum, a) => sum + a.storageCalls, 0))} calls into storage)`,
    `    ${m((t, s) => s.get.start - t.posted)}  the GET that saw it finished read by the Worker, ${m((_t, s) => s.get.start - last(s).end).trim()} ms after the alarm's end; answered at ${m((t, s) => s.get.end - t.posted).trim()} (${n((s) => s.get.storageCalls)} calls into storage, ${n((s) => s.get.subrequests)} to objects and services)`,
    `    ${m((t) => t.seen - t.posted)}  seen finished at the client`,
  ];
}

/** Each hand-over between two alarms of one run: the alarm's end after its last call into storage, then the next alarm's start. */
function handOvers(side: ServerSide | undefined): string {
  if (side === undefined || side.alarms.length < 2) return "";
  return side.alarms
    .slice(1)
    .map((next, i) => {
      const before = side.alarms[i]!;
      return `slice ${i + 1} ended ${before.end - before.lastStorageEnd} ms after its last call into storage, the next alarm fired ${next.start - before.end} ms later`;
    })
    .join("; ");
}

/** The longest gaps between two journal commits of one long run: where a slice ended and the next alarm's slice began. */
function sliceGaps(name: string, timeline: Timeline): string {
  const gaps = timeline.commitAts.slice(1).map((at, i) => ({ after: i + 1, ms: at - timeline.commitAts[i]! }));
  const longest = [...gaps].sort((a, b) => b.ms - a.ms).slice(0, 3).sort((a, b) => a.after - b.after);
  const inside = median(gaps.map((gap) => gap.ms));
  return `${name}: ${timeline.commitAts.length} journal steps in ${timeline.endAt - timeline.firstAt} ms; the longest gaps between two commits: ${longest.map((gap) => `${gap.ms} ms after commit ${gap.after}`).join(", ")} (median gap ${inside} ms)`;
}

async function main(): Promise<void> {
  const cpu = cpus();
  log(`machine: ${platform()} ${release()}, ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; load ${load()}`);
  log(`local observability: ${process.env.X_LOCAL_OBSERVABILITY === undefined ? "as wrangler starts it" : `X_LOCAL_OBSERVABILITY=${process.env.X_LOCAL_OBSERVABILITY}`}`);
  const ratchets: Ratchet[] = [{ name: "ratchet", checkout: ROOT, snapshot: snapshotProject(ROOT) }];
  // A second checkout is "before"; more are "before2", "before3", …
  befores.forEach((path, i) => ratchets.push({ name: i === 0 ? "before" : `before${i + 1}`, checkout: resolve(path), snapshot: snapshotProject(resolve(path)) }));
  for (const r of ratchets) log(`${r.name}: ${r.checkout} (${runtimeOf(r.checkout)})`);
  log(`peers: bench/peers (${runtimeOf(ROOT)})`);
  const dirs: string[] = [];
  const persist = () => {
    const dir = mkdtempSync(join(tmpdir(), "ratchet-step-peers-"));
    dirs.push(dir);
    return dir;
  };
  const maxSteps = String(Math.max(steps, timelineSteps) + 10);
  const peers = await startDevServer({ port: await freePort(), persistTo: persist(), cwd: join(ROOT, "bench/peers"), startTimeoutMs: 300_000 });
  try {
    for (const r of ratchets) {
      // Each checkout's own local settings (what its `npm start` would use), and room for long runs.
      const vars = { ...parseDevVars(readFileSync(join(r.checkout, ".dev.vars.example"), "utf8")), MAX_STEPS_LIMIT: maxSteps };
      r.persistTo = persist();
      r.server = await startDevServer({ port: await freePort(), persistTo: r.persistTo, cwd: r.snapshot.dir, vars, startTimeoutMs: 300_000 });
    }
    /** ms per storage call: 2,000 calls beside none, in a fresh object each. */
    const calls = async () => ((await peer(peers.url, "/calls?n=2000")) - (await peer(peers.url, "/calls?n=0"))) / 2000;
    // Warm-up: each path once, not counted.
    await peer(peers.url, `/bare?n=${steps}`);
    await peer(peers.url, `/flow?n=${steps}`);
    await calls();
    for (const r of ratchets) await ratchetRun(r.server!.url, steps);
    const figures: Record<string, number[]> = { bare: [], floor: [], flow: [], call: [] };
    const timelines: Record<string, Timeline[]> = {};
    /** CPU ms of each Ratchet's server per run: a figure the machine's load moves far less than wall time. */
    const cpu: Record<string, number[]> = {};
    for (const r of ratchets) {
      figures[r.name] = [];
      timelines[r.name] = [];
      cpu[r.name] = [];
    }
    log(`${steps} agent steps (a model call and a calculator call each), ${rounds} rounds; ms per agent step`);
    for (let round = 0; round < rounds; round++) {
      const at = load();
      figures.bare!.push((await peer(peers.url, `/bare?n=${steps}`)) / steps);
      figures.floor!.push((await peer(peers.url, `/bare?n=${steps}&sync=0`)) / steps);
      figures.flow!.push((await peer(peers.url, `/flow?n=${steps}`)) / steps);
      figures.call!.push(await calls());
      // The checkouts take turns going first.
      const order = ratchets.map((_r, i) => ratchets[(i + round) % ratchets.length]!);
      for (const r of order) {
        const cpuBefore = cpuMsOf(r.server!.pgid);
        const { ms, timeline } = await ratchetRun(r.server!.url, steps);
        figures[r.name]!.push(ms / steps);
        cpu[r.name]!.push(cpuMsOf(r.server!.pgid) - cpuBefore);
        timelines[r.name]!.push(timeline);
      }
      const row = ["bare", "floor", "flow", ...ratchets.map((r) => r.name)].map((name) => `${name} ${figures[name]!.at(-1)!.toFixed(3)}`).join("  ");
      log(`  round ${round + 1} (load ${at}): ${row}  | one storage call ${(figures.call!.at(-1)! * 1000).toFixed(0)} µs`);
    }
    log(`medians (ms per agent step):`);
    for (const name of ["bare", "floor", "flow", ...ratchets.map((r) => r.name)]) log(`  ${name.padEnd(8)} ${median(figures[name]!).toFixed(3)}  (${figures[name]!.map((v) => v.toFixed(3)).join(", ")})`);
    log(`  one storage call (SELECT 1, from outside): ${(median(figures.call!) * 1000).toFixed(0)} µs`);
    const floor = median(figures.floor!);
    const flow = median(figures.flow!);
    for (const r of ratchets) {
      const mine = median(figures[r.name]!);
      log(`${r.name}: ${(mine / floor).toFixed(2)}× the no-sync floor (target ≤ 1.5×), Workflows ${(flow / mine).toFixed(1)}× slower (target ≥ 20×), ${(mine / median(figures.bare!)).toFixed(2)}× the synced bare object`);
    }
    for (const r of ratchets.slice(1)) {
      // Each round's pair, run one after the other: what the load did to one it mostly did to the other.
      const paired = figures[r.name]!.map((value, i) => value / figures.ratchet![i]!);
      log(`${r.name} / ratchet: ${(median(figures[r.name]!) / median(figures.ratchet!)).toFixed(2)}× per agent step (the medians); round by round ${paired.map((ratio) => ratio.toFixed(2)).join(", ")}: median ${median(paired).toFixed(2)}×`);
    }
    for (const r of ratchets) {
      const total = cpu[r.name]!.reduce((sum, ms) => sum + ms, 0);
      log(`${r.name}: CPU of its wrangler dev (workerd and wrangler's node) per run, POST to seen finished: ${(total / rounds).toFixed(1)} ms (mean of ${rounds}; ${(total / cpu.ratchet!.reduce((sum, ms) => sum + ms, 0)).toFixed(2)}× ratchet's)`);
    }
    for (const r of ratchets) for (const line of timelineLines(r.name, timelines[r.name]!)) log(line);
    // The trace store is written as each invocation ends: read once the runs are over (and the last one's written).
    await sleep(1000);
    const stores = new Map(ratchets.map((r) => [r.name, traceStoreOf(r.persistTo!)]));
    for (const r of ratchets) {
      const store = stores.get(r.name);
      const pairs = store === undefined ? [] : timelines[r.name]!.flatMap((timeline) => {
        const side = serverSide(store, timeline);
        return side?.get === undefined ? [] : [{ timeline, side: side as Required<ServerSide> }];
      });
      for (const line of serverLines(r.name, pairs)) log(line);
    }
    if (timelineSteps > 0) {
      log(`one run of ${timelineSteps} agent steps on each, for its slices (a slice runs at most 500 new journal steps):`);
      for (const r of ratchets) {
        const { timeline } = await ratchetRun(r.server!.url, timelineSteps);
        const store = stores.get(r.name);
        const side = store === undefined ? undefined : serverSide(store, timeline);
        log(`${sliceGaps(r.name, timeline)}${side === undefined ? "" : `; ${handOvers(side)}`}`);
      }
    }
    log(`load at the end ${load()}`);
  } finally {
    for (const r of ratchets) {
      await r.server?.kill().catch((error: unknown) => log(`${r.name}: ${String(error)}`));
      r.snapshot.remove();
    }
    await peers.kill().catch((error: unknown) => log(`peers: ${String(error)}`));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
