// Load against `wrangler dev` on 127.0.0.1, driven from this separate Node process
// (`npm run bench:load`, or `node bench/ts.mjs bench/load.ts [--runs 200] [--steps 10] [--sockets 100]`).
//
//   (1) N runs started at once, each `steps` model steps with a scripted model and one HTTP tool,
//       each watched by its own WebSocket: all must finish. Printed: runs per second, commit →
//       client latency of live events (p50/p95/p99), peak memory of the wrangler dev process group.
//   (2) One run watched by M sockets: every socket must get every event, in order, once, and the
//       same bytes as the stored log.
//
// Figures are printed, never asserted; a broken invariant (a run that does not finish, a gap, a
// duplicate, a repeated tool call) prints FAIL and sets a non-zero exit code.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createRun, readStoredLog } from "../test/e2e/support/api";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { startFaultToolServer } from "../test/e2e/support/fault-tool-server";
import { watchGroupMemory, type GroupPeak } from "../test/e2e/support/process-memory";
import { watchRun, type RunWatch } from "../test/e2e/support/run-watch";
import { httpTool, toolRunBody } from "../test/e2e/support/scripts";
import { mib, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";

const RUNS = arg("runs", 200);
const STEPS = arg("steps", 10);
const SOCKETS = arg("sockets", 100);
const FANOUT_STEPS = arg("fanout-steps", 20);
const TOKEN = "dev-token";
const PORT = await freePort();

const log = (line: string) => console.log(`[bench:load] ${line}`);
const failures: string[] = [];
const check = (ok: boolean, message: string) => {
  if (!ok) failures.push(message);
};

/** CPU seconds each server process used since `before`, and this driver's own, over `wallSeconds`. */
function cpuLine(before: Map<string, number>, after: Map<string, number>, driver: NodeJS.CpuUsage, wallSeconds: number): string {
  const used = [...after].map(([name, seconds]) => [name, seconds - (before.get(name) ?? 0)] as const).filter(([, seconds]) => seconds > 0.05);
  const driverSeconds = (driver.user + driver.system) / 1e6;
  const parts = [...used.sort((a, b) => b[1] - a[1]).map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`), `this driver (node, tool server included) ${driverSeconds.toFixed(1)} s`];
  return `CPU over ${wallSeconds.toFixed(1)} s of wall time (2 cores = ${(2 * wallSeconds).toFixed(0)} CPU-s available): ${parts.join(", ")}`;
}

function memoryLine(peak: GroupPeak): string {
  const top = [...peak.perProcess].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([name, bytes]) => `${name} ${mib(bytes)}`);
  const pss = peak.peakPssBytes === undefined ? "" : `, PSS sum ${mib(peak.peakPssBytes)}`;
  return `peak memory of the wrangler dev process group: RSS sum ${mib(peak.peakRssBytes)}${pss} (${peak.samples} samples every 100 ms); largest processes: ${top.join(", ")}`;
}

/** Gap-free from 1, no duplicates, ends with a finished `end`. */
function checkWatch(label: string, watch: RunWatch, steps: number): void {
  const seqs = watch.events.map((event) => event.seq);
  check(seqs.every((seq, i) => seq === i + 1), `${label}: seqs not 1..n in order: ${seqs.join(",")}`);
  check(watch.duplicates.length === 0 && watch.gaps.length === 0, `${label}: duplicates ${watch.duplicates.join(",")} gaps ${JSON.stringify(watch.gaps)}`);
  const end = watch.events.at(-1);
  const endFrame = end === undefined ? undefined : (JSON.parse(end.text) as { type: string; status: string; steps: number });
  check(endFrame?.type === "end" && endFrame.status === "finished" && endFrame.steps === steps, `${label}: end ${end?.text}`);
}

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model ?? "unknown";
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpu}, ${mib(totalmem())} RAM, node ${process.version}`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-load-"));
  const tools = await startFaultToolServer();
  const snapshot = snapshotProject();
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir });
  const memory = watchGroupMemory(dev.pgid);
  try {
    // ---------------------------------------------------------------------------------------
    // (1) N runs at once, each watched.
    const tool = httpTool("work", `${tools.url}/work`);
    const cpuBefore = new Map(memory.peek().cpuSeconds);
    const driverBefore = process.cpuUsage();
    const started = Date.now();
    const watches: RunWatch[] = [];
    const createLatency: number[] = [];
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: RUNS }, async (_v, i) => {
        const t = Date.now();
        const run = await createRun(dev.url, TOKEN, toolRunBody(`load run ${i}`, STEPS, tool));
        createLatency.push(Date.now() - t);
        ids[i] = run.id;
        watches[i] = watchRun({ base: dev.url, id: run.id, token: run.token, deadlineMs: 600_000 });
      }),
    );
    const createdAll = Date.now();
    const outcomes = await Promise.allSettled(watches.map((watch) => watch.ended));
    const finishedAll = Math.max(...watches.map((watch) => watch.events.at(-1)?.arrivedAt ?? 0));
    const stillRunning = outcomes.filter((outcome) => outcome.status === "rejected").length;
    check(stillRunning === 0, `${stillRunning} of ${RUNS} runs did not finish`);
    watches.forEach((watch, i) => checkWatch(`run ${i}`, watch, STEPS));
    const driverUsed = process.cpuUsage(driverBefore);
    const loadPeak = memory.peek();
    const cpuAfter = new Map(loadPeak.cpuSeconds);
    const peakAfterLoad = { ...loadPeak, perProcess: new Map(loadPeak.perProcess) };

    const live = watches.flatMap((watch) => watch.events.filter((event) => event.live));
    const latency = live.map((event) => event.arrivedAt - event.committedAt);
    const stepLatency = live.filter((event) => event.type === "model" || event.type === "tool-result").map((event) => event.arrivedAt - event.committedAt);
    const toolCalls = [...tools.calls.values()].filter((call) => call.route === "/work");
    const repeated = toolCalls.filter((call) => call.arrivals.length !== 1);
    check(toolCalls.length === RUNS * (STEPS - 1), `tool calls: ${toolCalls.length}, expected ${RUNS * (STEPS - 1)}`);
    check(repeated.length === 0, `${repeated.length} tool calls arrived more than once`);
    const seconds = (finishedAll - started) / 1000;
    log(`(1) ${RUNS} runs started at once, ${STEPS} model steps + ${STEPS - 1} HTTP tool calls each, one WebSocket per run`);
    log(`    all created in ${createdAll - started} ms (create: ${summary(createLatency)})`);
    log(`    ${RUNS - stillRunning}/${RUNS} finished; last end event ${seconds.toFixed(2)} s after the first create → ${(RUNS / seconds).toFixed(1)} runs/s, ${((RUNS * (2 * STEPS - 1)) / seconds).toFixed(0)} journal steps/s`);
    log(`    commit → client, model + tool-result events that arrived live: ${summary(stepLatency)}`);
    log(`    commit → client, every live stored event: ${summary(latency)}`);
    log(`    tool calls at the tool server: ${toolCalls.length}, each exactly once: ${repeated.length === 0}`);
    log(`    ${memoryLine(peakAfterLoad)}`);
    log(`    ${cpuLine(cpuBefore, cpuAfter, driverUsed, (finishedAll - started) / 1000)}`);

    // ---------------------------------------------------------------------------------------
    // (2) One run, many sockets.
    const slow = httpTool("work", `${tools.url}/work?ms=40`);
    const run = await createRun(dev.url, TOKEN, toolRunBody("fan-out run", FANOUT_STEPS, slow, { delayMs: () => 40 }));
    const fanWatches = Array.from({ length: SOCKETS }, () => watchRun({ base: dev.url, id: run.id, token: run.token, deadlineMs: 120_000 }));
    const fanOutcomes = await Promise.allSettled(fanWatches.map((watch) => watch.ended));
    const stored = await readStoredLog(dev.url, run.id, run.token);
    let identical = 0;
    fanWatches.forEach((watch, i) => {
      checkWatch(`socket ${i}`, watch, FANOUT_STEPS);
      const same = watch.events.length === stored.length && watch.events.every((event, j) => event.text === stored[j]);
      check(same, `socket ${i}: ${watch.events.length} events, not identical to the stored log of ${stored.length}`);
      if (same) identical++;
    });
    const fanLatency = fanWatches.flatMap((watch) => watch.events.filter((event) => event.live).map((event) => event.arrivedAt - event.committedAt));
    log(`(2) one run of ${FANOUT_STEPS} steps watched by ${SOCKETS} sockets: ${fanOutcomes.filter((o) => o.status === "fulfilled").length} saw the end; ${identical}/${SOCKETS} got all ${stored.length} stored events, in order, once, byte-identical to the stored log`);
    log(`    commit → client over the ${SOCKETS} sockets (live events): ${summary(fanLatency)}`);
    const peak = memory.stop();
    log(`    ${memoryLine(peak)}`);
  } finally {
    memory.stop();
    await dev.kill();
    await tools.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  if (failures.length > 0) {
    for (const failure of failures.slice(0, 20)) log(`FAIL ${failure}`);
    log(`FAIL: ${failures.length} broken invariants`);
    process.exitCode = 1;
  } else {
    log("OK: every run finished; every event arrived in order, once; no tool call repeated");
  }
}

await main();
