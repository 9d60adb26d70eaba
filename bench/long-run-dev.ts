// A 2,000-step run on a real `wrangler dev` (`npm run bench:long`, after the workerd part; or
// `node bench/ts.mjs bench/long-run-dev.ts`): it finishes by its own alarms; the SQLite files of
// the --persist-to directory grow by a flat amount per step; and after a SIGKILL of the process
// group at about 1,000 and 1,990 model steps, the restarted server resumes the run by itself.
// Resume time here is from the kill to the commit of the run's next new step: wrangler dev
// starting again, the alarm firing, the object starting, the replay of every journal step so far.
// The replay alone is read from the object's own log line ("ratchet.replay", src/durable/run/operator-log.ts)
// in the restarted server's output.
import { readdirSync, statSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { createRun, readStoredLog } from "../test/e2e/support/api";
import { sleep } from "./support/poll";
import { replayLines } from "./support/replay-lines";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { watchRun } from "../test/e2e/support/run-watch";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const MODEL_STEPS = 2000;
const KILL_AT = [1000, 1990];
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:long-dev] ${line}`);

/** Bytes of the Durable Objects' SQLite files (database, WAL and shared memory) under `dir`. */
function sqliteBytes(dir: string): { db: number; wal: number } {
  let db = 0;
  let wal = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (full.includes("RunObject") && entry.name.endsWith(".sqlite")) db += statSync(full).size;
      else if (full.includes("RunObject") && entry.name.endsWith(".sqlite-wal")) wal += statSync(full).size;
    }
  };
  walk(dir);
  return { db, wal };
}

function script() {
  const usage = { inputTokens: 120, outputTokens: 12 };
  // Each model call takes 5 ms, as any real one takes some time: the run lasts long enough to be
  // sampled and killed where intended.
  const calls = Array.from({ length: MODEL_STEPS - 1 }, (_v, i) => ({ text: `Step ${i + 1}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], delayMs: 5, costUsd: 0.0001, usage }));
  return [...calls, { text: "done", delayMs: 5, costUsd: 0.0001, usage }];
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-long-"));
  const snapshot = snapshotProject();
  // A 2,000-step run is far past the default MAX_STEPS_LIMIT (100): this deployment allows it.
  const start = () => startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, logLevel: "log", vars: { MAX_STEPS_LIMIT: String(MODEL_STEPS) } });
  let dev: DevServer = await start();
  const failures: string[] = [];
  try {
    const started = Date.now();
    const run = await createRun(dev.url, "dev-token", { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: MODEL_STEPS, script: script() });
    // The watcher waits 3 s before each reconnection, so the resume after a restart is the alarm's doing.
    const watch = watchRun({ base: dev.url, id: run.id, token: run.token, reconnect: true, reconnectDelayMs: 3000, deadlineMs: 900_000 });
    const modelSteps = () => watch.events.filter((event) => event.type === "model").length;
    const sizes: { steps: number; db: number; wal: number }[] = [];
    const resumes: { atStep: number; killedAt: number; restartMs: number; server: DevServer }[] = [];
    let nextSample = 250;
    const pending = [...KILL_AT];
    while (!watch.events.some((event) => event.type === "end")) {
      if (Date.now() - started > 900_000) throw new Error("the run did not finish within 15 minutes");
      const steps = modelSteps();
      if (steps >= nextSample) {
        sizes.push({ steps, ...sqliteBytes(dir) });
        nextSample += 250;
      }
      if (pending[0] !== undefined && steps >= pending[0]) {
        pending.shift();
        await dev.kill();
        const killedAt = Date.now();
        dev = await start();
        resumes.push({ atStep: steps, killedAt, restartMs: Date.now() - killedAt, server: dev });
      }
      await sleep(20);
    }
    const finishedAt = Date.now();
    const slices = replayLines(dev.output());
    sizes.push({ steps: modelSteps(), ...sqliteBytes(dir) });
    const texts = await readStoredLog(dev.url, run.id, run.token, 60_000);
    const events = texts.map((text) => JSON.parse(text) as { seq: number; at: string; type: string; step?: number; status?: string });
    const end = events.at(-1);
    if (end?.type !== "end" || end.status !== "finished") failures.push(`the run ended ${JSON.stringify(end)}`);
    if (!events.every((event, i) => event.seq === i + 1)) failures.push("the stored log is not gap-free");
    const models = events.filter((event) => event.type === "model").map((event) => event.step);
    if (models.length !== MODEL_STEPS || new Set(models).size !== MODEL_STEPS) failures.push(`${models.length} model events, ${new Set(models).size} distinct steps`);

    log(`run: ${MODEL_STEPS} model steps + ${MODEL_STEPS - 1} calculator calls on wrangler dev, ${events.length} stored events; ${end?.status} in ${((finishedAt - started) / 1000).toFixed(1)} s including ${resumes.length} SIGKILLs and restarts`);
    const growth = sizes.slice(1).map((size, i) => ((size.db + size.wal - sizes[i]!.db - sizes[i]!.wal) / (2 * (size.steps - sizes[i]!.steps))).toFixed(0));
    log(`SQLite files of the run's object (database + WAL), every ~250 model steps: ${sizes.map((size) => `${size.steps}: ${(size.db / 1024).toFixed(0)} + ${(size.wal / 1024).toFixed(0)} KiB`).join(", ")}`);
    log(`growth of database + WAL per journal step between samples (bytes; a WAL checkpoint moves pages from one file to the other, and the WAL file is reused, not shrunk): ${growth.join(", ")}`);
    const first = sizes[0]!;
    const last = sizes.at(-1)!;
    log(`overall: ${((last.db - first.db) / (2 * (last.steps - first.steps))).toFixed(0)} bytes of database per journal step from ${first.steps} to ${last.steps} model steps (database file alone)`);
    if (slices.length > 0) log(`every slice of the last server life replays its segment first: ${slices.map((line) => `${line.replayedSteps} steps in ${line.ms} ms`).join(", ")}`);
    for (const resume of resumes) {
      const next = events.find((event) => Date.parse(event.at) > resume.killedAt);
      const resumeMs = next === undefined ? Number.NaN : Date.parse(next.at) - resume.killedAt;
      const replay = replayLines(resume.server.output())[0];
      if (replay === undefined) failures.push(`no replay line in the output of the server restarted at model step ${resume.atStep}`);
      log(`SIGKILL at model step ${resume.atStep}: the next step was committed ${resumeMs} ms after the kill, by the run's own alarm (wrangler dev itself took ${resume.restartMs} ms to answer again); the restarted object replayed ${replay?.replayedSteps} journal steps in ${replay?.ms} ms before its first new step`);
    }
  } finally {
    await dev.kill();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  verdict(failures, log);
}

await main();
