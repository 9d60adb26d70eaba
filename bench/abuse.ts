// Holding under abuse, against `wrangler dev` on 127.0.0.1, driven from this separate Node process
// (`npm run bench:abuse`, or `node bench/ts.mjs bench/abuse.ts [--steps 150] [--flood 1000] [--events 10000] [--readers 20]`).
//
//   (1) flood   one run steps (scripted model calls of 200 ms, then of 20 ms, and a calculator call each) while
//               `flood` requests with made-up run tokens hit it, 50 at a time. The run's step time
//               (between consecutive `model` events, from their stored `at`) is compared: p50 of a
//               run with no flood, and of one during the flood — side by side, on two servers: one
//               with the deployment's AUTH_FAILURE_RATE_LIMIT (20 a minute: past it the edge answers
//               429 without asking the run), one with that limit out of the way (every wrong token
//               reaches the run's object, which reads only the token's hash). Target: ≤ 2× the
//               no-flood p50.
//   (2) readers `readers` SSE readers that never read, on a run of `events` stored events that keeps
//               stepping: the wrangler dev process group's memory (PSS, RSS) before the readers, and
//               after the run stepped on with them for a while. Target: flat.
//
// Figures are printed, never asserted; a broken invariant prints FAIL and exits non-zero.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { groupPids, sampleProcess } from "../test/e2e/support/process-memory";
import { readEventsUntilEnd } from "../test/e2e/support/sse";
import { median } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { until } from "./support/poll";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const STEPS = arg("steps", 150);
const FLOOD = arg("flood", 1000);
const EVENTS = arg("events", 10_000);
// 20, not the 50 hoped for: past about 30 stalled streams local `wrangler dev` stops accepting
// connections at all (its /v1/health too, with the run's object still stepping), with this code and
// with the code before this round alike; see BENCHMARKS.md.
const READERS = arg("readers", 20);
const TOKEN = "dev-token";
const log = (line: string) => console.log(`[bench:abuse] ${line}`);
const failures: string[] = [];

/** A run of `steps` turns, each a 20 ms model call with one calculator call; then a last answer. */
function steppingRun(steps: number, delayMs = 20) {
  const turn = (i: number) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], delayMs, costUsd: 0 });
  return { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: steps + 1, budget: { usd: 1 }, script: [...Array.from({ length: steps }, (_v, i) => turn(i)), { text: "done", costUsd: 0 }] };
}

/** Milliseconds between consecutive model events of the run (their stored times), those whose start is in [from, to). */
async function stepTimes(dev: DevServer, id: string, token: string, from = 0, to = Infinity): Promise<number[]> {
  const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${id}/events?after=0`, token, 120_000);
  const times = events.filter((event) => event.data.type === "model").map((event) => Date.parse(String(event.data.at)));
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) if (times[i - 1]! >= from && times[i - 1]! < to) gaps.push(times[i]! - times[i - 1]!);
  return gaps;
}

async function waitEnd(dev: DevServer, id: string, token: string): Promise<void> {
  await until(async () => (await getRun(dev.url, id, token)).status !== "running", 300_000, () => `run ${id} did not end`, 200);
}

/** `count` requests with made-up run tokens at run `id`, 50 at a time; answers their statuses. */
async function flood(dev: DevServer, id: string, count: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < count) {
        next++;
        const fake = `rt_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
        const response = await request(dev.url, `/v1/runs/${id}`, fake);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function withServer<T>(vars: Record<string, string>, tomlEdit: (toml: string) => string, work: (dev: DevServer) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-abuse-"));
  // `--project <dir>`: another checkout of the project (an older commit, to compare side by side).
  const project = process.argv.includes("--project") ? process.argv[process.argv.indexOf("--project") + 1] : undefined;
  const snapshot = snapshotProject(project);
  const toml = join(snapshot.dir, "wrangler.toml");
  writeFileSync(toml, tomlEdit(readFileSync(toml, "utf8")));
  const dev = await startDevServer({ port: await freePort(), persistTo: dir, cwd: snapshot.dir, vars });
  try {
    return await work(dev);
  } finally {
    await dev.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Creation limits out of the way (the benchmark creates runs quickly); the failure limit as given. */
const limits = (authFailures: number) => (toml: string) =>
  toml
    .replace(/(name = "CREATE_RATE_LIMIT"[\s\S]*?simple = \{ limit = )\d+/, "$11000000")
    .replace(/(name = "AUTH_FAILURE_RATE_LIMIT"[\s\S]*?simple = \{ limit = )\d+/, `$1${authFailures}`);

async function floodPart(label: string, authFailures: number, delayMs: number): Promise<void> {
  await withServer({ MAX_STEPS_LIMIT: String(STEPS + 10) }, limits(authFailures), async (dev) => {
    label = `${label}, ${delayMs} ms model calls`;
    const quiet = await createRun(dev.url, TOKEN, steppingRun(STEPS, delayMs));
    await waitEnd(dev, quiet.id, quiet.token);
    const before = await stepTimes(dev, quiet.id, quiet.token);
    const loud = await createRun(dev.url, TOKEN, steppingRun(STEPS, delayMs));
    // The flood starts once the run is under way, and the steps it overlaps are the ones counted.
    await until(async () => (await getRun(dev.url, loud.id, loud.token)).steps >= 5, 60_000, () => "the run did not start", 50);
    const started = Date.now();
    const statuses = await flood(dev, loud.id, FLOOD);
    const ended = Date.now();
    // The run's own token waits out the minute now (that is the point): the deployment token reads it.
    await waitEnd(dev, loud.id, TOKEN);
    const during = await stepTimes(dev, loud.id, TOKEN, started, ended);
    const ratio = median(during) / median(before);
    log(`(1) ${label}: ${FLOOD} wrong-token requests in ${((ended - started) / 1000).toFixed(1)} s (${[...statuses].map(([status, n]) => `${n}× ${status}`).join(", ")})`);
    log(`(1) ${label}: step p50 ${median(before).toFixed(1)} ms with no flood (${before.length} steps), ${median(during).toFixed(1)} ms during it (${during.length} steps): ${ratio.toFixed(2)}× (target ≤ 2×), +${(median(during) - median(before)).toFixed(1)} ms a step`);
    if (during.length < 5) failures.push(`${label}: only ${during.length} steps overlapped the flood`);
    if ((statuses.get(200) ?? 0) > 0) failures.push(`${label}: a made-up token was accepted`);
    if ((await getRun(dev.url, loud.id, TOKEN)).status !== "finished") failures.push(`${label}: the flooded run did not finish`);
  });
}

function groupMemory(dev: DevServer): { pss: number; rss: number } {
  let pss = 0;
  let rss = 0;
  for (const pid of groupPids(dev.pgid)) {
    const sample = sampleProcess(pid);
    if (sample === undefined) continue;
    rss += sample.rssBytes;
    pss += sample.pssBytes ?? sample.rssBytes;
  }
  return { pss, rss };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** Steps the run on until it logged `more` events past what it has, noting the memory's peak. */
async function stepOn(dev: DevServer, id: string, more: number): Promise<{ to: number; peak: { pss: number; rss: number } }> {
  const from = (await getRun(dev.url, id, TOKEN)).lastSeq;
  let peak = groupMemory(dev);
  let last = await getRun(dev.url, id, TOKEN);
  await until(
    async () => {
      const now = groupMemory(dev);
      if (now.pss > peak.pss) peak = now;
      last = await getRun(dev.url, id, TOKEN);
      return last.lastSeq >= from + more;
    },
    300_000,
    () => `the run did not step on (${from} events before; now ${last.status}, ${last.steps} steps, ${last.lastSeq} events)`,
    250,
  );
  return { to: last.lastSeq, peak };
}

/**
 * An SSE reader that never reads: a raw HTTP/1.1 request whose socket is paused once the status
 * line came. (Not fetch: its client reads ahead into its own buffers, and its pool limits how many
 * streams one process holds open.)
 */
function openStalledReader(base: string, path: string, token: string): Promise<{ socket: Socket; status: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    const timer = setTimeout(() => reject(new Error(`no answer to ${path} in 30 s`)), 30_000);
    socket.once("error", reject);
    socket.once("data", (chunk: Buffer) => {
      clearTimeout(timer);
      socket.pause();
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? 0) });
    });
  });
}

async function readersPart(): Promise<void> {
  // Each turn logs 4 events (step-start, model, tool-call, tool-result): the first `turns` come at
  // once, the next 1,200 at 50 ms each (at least 200 without readers, 200 with them).
  const turns = Math.ceil(EVENTS / 4);
  await withServer({ MAX_STEPS_LIMIT: String(turns + 1300) }, limits(20), async (dev) => {
    const body = steppingRun(turns, 0);
    const slow = Array.from({ length: 1200 }, (_v, i) => ({ toolCalls: [{ id: `l${i}`, name: "calculator", input: { expression: `${i} * 2` } }], delayMs: 50, costUsd: 0 }));
    body.script = [...body.script.slice(0, turns), ...slow, { text: "done", costUsd: 0 }];
    body.maxSteps = turns + 1202;
    const run = await createRun(dev.url, TOKEN, body);
    await until(async () => (await getRun(dev.url, run.id, TOKEN)).lastSeq >= EVENTS, 600_000, () => `the run did not reach ${EVENTS} events`, 200);
    // The control: the same stepping with nobody watching.
    const start = groupMemory(dev);
    const alone = await stepOn(dev, run.id, 800);
    const before = groupMemory(dev);
    const readers: Socket[] = [];
    for (let i = 0; i < READERS; i++) {
      // Opened from the first event; after its status line the socket is paused and never read, so
      // the kernel's buffers fill and the server sees a reader that stopped.
      const { socket, status } = await openStalledReader(dev.url, `/v1/runs/${run.id}/events?after=0`, run.token);
      readers.push(socket);
      if (status !== 200) failures.push(`reader ${i}: ${status}`);
    }
    // The readers' first pages go out as they open; then the run steps on with them attached.
    const opened = await stepOn(dev, run.id, 200);
    const settled = groupMemory(dev);
    const watched = await stepOn(dev, run.id, 800);
    const after = groupMemory(dev);
    const delta = (a: number, b: number) => `${b - a >= 0 ? "+" : ""}${mib(b - a)}`;
    log(`(2) a run of ${alone.to} events stepping on to ${watched.to}; ${READERS} SSE readers from seq 0 that never read, opened at ${alone.to}`);
    log(`(2) wrangler dev process group PSS: ${mib(start.pss)} → ${mib(before.pss)} over 800 events with no reader (${delta(start.pss, before.pss)})`);
    log(`(2)   readers opened, 200 events: ${mib(before.pss)} → ${mib(settled.pss)} (${delta(before.pss, settled.pss)}, peak ${mib(opened.peak.pss)})`);
    log(`(2)   800 more events with the readers attached: ${mib(settled.pss)} → ${mib(after.pss)} (${delta(settled.pss, after.pss)}, peak ${mib(watched.peak.pss)})`);
    log(`(2) RSS: ${mib(start.rss)} → ${mib(before.rss)} → ${mib(settled.rss)} → ${mib(after.rss)}`);
    for (const reader of readers) reader.destroy();
  });
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  const only = process.argv.includes("--part") ? process.argv[process.argv.indexOf("--part") + 1] : undefined;
  if (only === undefined || only === "flood") {
    // A model call of 200 ms is a fast one; 20 ms shows what a step costs besides waiting for it.
    for (const delayMs of [200, 20]) {
      await floodPart("AUTH_FAILURE_RATE_LIMIT 20/min", 20, delayMs);
      await floodPart("failure limit out of the way", 1_000_000, delayMs);
    }
  }
  if (only === undefined || only === "readers") await readersPart();
  verdict(failures, log, "OK: every flooded run finished, no made-up token was accepted, every reader was taken");
}

await main();
