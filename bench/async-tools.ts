// Runs that wait on async HTTP tools, on a real `wrangler dev` (`npm run bench:async`, or
// `node bench/ts.mjs bench/async-tools.ts [runs] [quiet seconds]`):
//
// 1. A waiting run costs nothing: N runs whose tool server took their jobs (202) are left alone
//    for a quiet window; the objects make no alarm call in it. Alarm calls are counted from the
//    Worker's own log: every slice of a running run replays its journal and logs one
//    `ratchet.replay` line (src/durable/run/operator-log.ts), so a waiting run's alarm firing would show.
//    The same count after the callbacks shows that the instrument sees the slices that do run.
// 2. A waiting run can be evicted: the whole runtime is SIGKILLed while half the runs wait and
//    started again on the same --persist-to (nothing of any object is left in memory); again no
//    alarm call in a quiet window, and each run resumes when its result comes.
// 3. Callback → next model call: the time from the tool server sending the result to the run's
//    `step-start` of its next model call (the event's own timestamp, same machine clock), for
//    runs whose object was live (warm) and for runs after the restart (cold).
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createRun, getRun, type Created } from "../test/e2e/support/api";
import { sleep, until } from "./support/poll";
import { replayLines } from "./support/replay-lines";
import { startAsyncToolServer } from "../test/e2e/support/async-tool-server";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { httpTool } from "../test/e2e/support/scripts";
import { percentile, summary } from "../test/e2e/support/stats";
import { readEventsUntilEnd } from "../test/e2e/support/sse";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const RUNS = Number(process.argv[2] ?? "40");
const QUIET_MS = Number(process.argv[3] ?? "30") * 1000;
const PORT = await freePort();
const SPACING_MS = 250;
const log = (line: string) => console.log(`[bench:async] ${line}`);

/** Slices (alarms) of these runs logged in `output`. */
const slicesOf = (output: string, ids: ReadonlySet<string>) => replayLines(output).filter((line) => ids.has(line.runId)).length;

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  log(`${RUNS} runs, quiet windows of ${QUIET_MS / 1000} s`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-async-bench-"));
  const snapshot = snapshotProject();
  const tools = await startAsyncToolServer();
  const start = () => startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, logLevel: "log", vars: { HTTP_TOOL_ALLOW: `http://127.0.0.1:${tools.port}` } });
  let dev: DevServer = await start();
  const failures: string[] = [];
  try {
    const runs: Created[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(
        await createRun(dev.url, "dev-token", {
          messages: [{ role: "user", content: `render ${i}` }],
          tools: [{ ...httpTool("render", `${tools.url}/job`), async: true, timeoutSeconds: 3600 }],
          script: [{ text: "Rendering.", toolCalls: [{ id: "r", name: "render", input: { n: i } }] }, { text: "Done." }],
        }),
      );
    }
    const keyOf = (run: Created) => `${run.id}/s1/start/1/r`;
    const waiting = async (run: Created) => ((await getRun(dev.url, run.id, run.token)) as { pending?: unknown[] }).pending?.length === 1;
    await until(async () => (await Promise.all(runs.map(waiting))).every(Boolean), 120_000, () => "not every job was taken");
    const warm = runs.slice(0, RUNS / 2);
    const cold = runs.slice(RUNS / 2);
    const ids = (list: Created[]) => new Set(list.map((run) => run.id));

    // 1. Quiet window while every run waits.
    const before = slicesOf(dev.output(), ids(runs));
    await sleep(QUIET_MS);
    const quiet1 = slicesOf(dev.output(), ids(runs)) - before;
    log(`${RUNS} runs waiting for ${QUIET_MS / 1000} s: ${quiet1} alarm calls (slices) among them`);
    if (quiet1 !== 0) failures.push(`${quiet1} alarm calls while waiting`);

    const sentAt = new Map<string, number>();
    const deliver = async (list: Created[]) => {
      for (const run of list) {
        sentAt.set(run.id, Date.now());
        const status = await tools.deliver(keyOf(run), { content: `video ${run.id}` });
        if (status !== 202) failures.push(`callback for ${run.id} answered ${status}`);
        await sleep(SPACING_MS);
      }
    };
    const finished = (list: Created[]) => until(async () => (await Promise.all(list.map(async (run) => (await getRun(dev.url, run.id, run.token)).status === "finished"))).every(Boolean), 120_000, () => "runs did not finish");
    await deliver(warm);
    await finished(warm);
    const afterWarm = slicesOf(dev.output(), ids(warm));
    log(`the ${warm.length} runs answered: ${afterWarm} slices logged after their callbacks (the count sees slices that run)`);

    // 2. Evicted: the runtime is killed while the other half waits.
    await dev.kill();
    const killedAt = Date.now();
    dev = await start();
    log(`SIGKILL of wrangler dev while ${cold.length} runs wait; started again in ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    // No request reaches these runs until their callbacks: the callback is what starts each object again.
    await sleep(QUIET_MS);
    const quiet2 = slicesOf(dev.output(), ids(cold));
    log(`${cold.length} runs waiting ${QUIET_MS / 1000} s after the restart: ${quiet2} alarm calls (slices) among them`);
    if (quiet2 !== 0) failures.push(`${quiet2} alarm calls while waiting after the restart`);
    await deliver(cold);
    await finished(cold);
    log(`the ${cold.length} runs answered: ${slicesOf(dev.output(), ids(cold))} slices logged after their callbacks`);

    // 3. Callback → next model call.
    const latency = async (run: Created) => {
      const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${run.id}/events`, run.token);
      const next = events.find((event) => event.data.type === "step-start" && event.data.step === 2);
      if (next === undefined) throw new Error(`no second model call in ${run.id}`);
      return Date.parse(String(next.data.at)) - sentAt.get(run.id)!;
    };
    const warmMs = await Promise.all(warm.map(latency));
    const coldMs = await Promise.all(cold.map(latency));
    log(`callback → next model call, object live (warm): ${summary(warmMs)}`);
    log(`callback → next model call, after the restart (cold object): ${summary(coldMs)}`);
    log(`all: p50 ${percentile([...warmMs, ...coldMs], 50)} ms`);
    const resent = [...tools.jobs.values()].filter((job) => job.arrivals.length !== 1).length;
    log(`jobs sent more than once: ${resent} of ${tools.jobs.size}`);
    if (resent !== 0) failures.push(`${resent} jobs sent more than once`);
  } finally {
    await dev.kill();
    await tools.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  verdict(failures, log, "OK: waiting runs make no alarm calls, survive a restart of the runtime, and resume on their callbacks");
}

await main();
