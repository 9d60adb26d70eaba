// Schedules against `wrangler dev` on 127.0.0.1, driven from this separate Node process
// (`npm run bench:schedules`, or `node bench/ts.mjs bench/schedules.ts [--seconds 30] [--many 20]`).
//
// The figure: fire time → run started, i.e. a run's `createdAt` (written by its run object when it
// stored the run) minus its `firedAt` (the fire time it stands for, a whole second of the cron
// expression). It holds the alarm's own lateness, the schedule object's work (the fire recorded,
// the overlap decided), the run's id derived and its object's `create`. Both times come from the
// same machine's clock. Two settings, one after the other on one `wrangler dev`
// (SCHEDULE_MIN_SECONDS=1):
//
//   (1) one schedule firing every second for `seconds` s, with the default overlap (skip: each fire
//       first asks whether the previous run still runs);
//   (2) `many` schedules firing every second at the same moments for `seconds` s, overlap allow.
//
// Figures are printed, never asserted; a broken invariant (two runs for one fire) prints FAIL.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { percentile, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { sleep } from "./support/poll";
import { freePort } from "../test/e2e/support/http-server";

const SECONDS = arg("seconds", 30);
const MANY = arg("many", 20);
const TOKEN = "dev-token";
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:schedules] ${line}`);
const failures: string[] = [];

type Summary = { id: string; createdAt: string; firedAt?: string };

async function api<T>(base: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function runsOf(base: string, scheduleId: string): Promise<Summary[]> {
  const runs: Summary[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<{ runs: Summary[]; nextCursor?: string }>(base, `/v1/runs?scheduleId=${scheduleId}&limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`);
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return runs;
}

const run = { provider: "scripted", messages: [{ role: "user", content: "Tick." }], script: [{ text: "Tocked." }] };

/** Creates `count` every-second schedules, lets them fire for SECONDS s, pauses them, and answers each run's delay (ms). */
async function measure(base: string, count: number, overlap: "skip" | "allow"): Promise<{ delays: number[]; runs: number }> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await api<{ schedule: { id: string } }>(base, "/v1/schedules", { method: "POST", body: { cron: "* * * * * *", overlap, run } })).schedule.id);
  await sleep(SECONDS * 1000);
  await Promise.all(ids.map((id) => api(base, `/v1/schedules/${id}`, { method: "PATCH", body: { paused: true } })));
  const delays: number[] = [];
  let runs = 0;
  for (const id of ids) {
    const summaries = await runsOf(base, id);
    runs += summaries.length;
    const fired = summaries.map((summary) => summary.firedAt!);
    if (new Set(fired).size !== fired.length) failures.push(`schedule ${id}: two runs for one fire`);
    for (const summary of summaries) delays.push(Date.parse(summary.createdAt) - Date.parse(summary.firedAt!));
  }
  return { delays, runs };
}

async function main(): Promise<void> {
  const machine = `${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
  log(machine);
  const snapshot = snapshotProject();
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-schedules-"));
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { SCHEDULE_MIN_SECONDS: "1" } });
  try {
    for (const [label, count, overlap] of [["1 schedule, every second, overlap skip", 1, "skip"], [`${MANY} schedules, every second, overlap allow`, MANY, "allow"]] as const) {
      const { delays, runs } = await measure(dev.url, count, overlap);
      log(`${label}, ${SECONDS} s: ${runs} runs`);
      log(`  fire time → run started: p50 ${percentile(delays, 50).toFixed(0)} ms, p90 ${percentile(delays, 90).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms (${summary(delays)})`);
    }
  } finally {
    await dev.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    for (const failure of failures) log(`FAIL ${failure}`);
    process.exit(1);
  }
}

await main();
