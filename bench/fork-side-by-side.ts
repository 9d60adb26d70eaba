// Forks at the end of long runs, side by side with a baseline checkout, in one sitting
// (`npm run bench:fork -- --steps 500` prints this code's own figures; this one compares:
// `node bench/ts.mjs bench/fork-side-by-side.ts --baseline <checkout> [--steps 500] [--forks 7]`).
//
// Two `wrangler dev` servers (a snapshot of the baseline and of this project) each run one source of
// `steps` steps (scripted: each step but the last a calculator call). Then `forks` rounds, each
// forking both sources at step `steps` - 1 (which server goes first alternates): from sending the
// fork request to the fork's step-`steps` model event committed (its first live model call), and
// to the 201. The machine is shared: the figures that count are the p50s and their ratio.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/http-server";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { watchRun } from "../test/e2e/support/run-watch";
import { arg } from "./support/args";
import { verdict } from "./support/verdict";

const STEPS = arg("steps", 500);
const FORKS = arg("forks", 7);
const baselineAt = process.argv.find((_value, index, all) => all[index - 1] === "--baseline");
const log = (line: string) => console.log(`[bench:fork side by side] ${line}`);
const failures: string[] = [];

function script() {
  const usage = { inputTokens: 120, outputTokens: 12 };
  const calls = Array.from({ length: STEPS - 1 }, (_v, i) => ({ text: `Step ${i + 1}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.0001, usage }));
  return [...calls, { text: "done", costUsd: 0.0001, usage }];
}

type Side = { name: string; dev: DevServer; dir: string; remove: () => void; sourceId: string };

async function side(name: string, root: string): Promise<Side> {
  const snapshot = snapshotProject(root);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-fork-sbs-"));
  const dev = await startDevServer({ port: await freePort(), persistTo: dir, cwd: snapshot.dir, vars: { MAX_STEPS_LIMIT: String(STEPS) } });
  const started = performance.now();
  const run = await createRun(dev.url, LOCAL_TOKEN, { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: STEPS, minAnswerChars: 0, script: script() });
  const watch = watchRun({ base: dev.url, id: run.id, token: run.token, reconnect: true, deadlineMs: 900_000 });
  await watch.ended;
  watch.close();
  const view = await getRun(dev.url, run.id, run.token);
  if (view.status !== "finished" || view.steps !== STEPS) failures.push(`${name}: the source ended ${view.status} at ${view.steps} steps`);
  log(`${name}: source of ${STEPS} steps finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { name, dev, dir, remove: snapshot.remove, sourceId: run.id };
}

async function forkOnce(at: Side): Promise<{ firstLiveMs: number; createdMs: number }> {
  const sentAt = Date.now();
  const started = performance.now();
  const response = await request(at.dev.url, `/v1/runs/${at.sourceId}/fork`, LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ atStep: STEPS - 1 }) });
  const createdMs = performance.now() - started;
  const text = await response.text();
  if (response.status !== 201) throw new Error(`${at.name} fork: ${response.status} ${text.slice(0, 300)}`);
  const forked = JSON.parse(text) as { run: { id: string }; token: string };
  const watch = watchRun({ base: at.dev.url, id: forked.run.id, token: forked.token, after: 0, deadlineMs: 120_000 });
  await watch.until(() => watch.events.some((event) => event.type === "model"), 120_000, () => "no model event from the fork");
  await watch.ended;
  watch.close();
  const model = watch.events.find((event) => event.type === "model")!;
  const step = (JSON.parse(model.text) as { step?: number }).step;
  if (step !== STEPS) failures.push(`${at.name}: the fork's first model event is step ${step}, not ${STEPS}`);
  const view = await getRun(at.dev.url, forked.run.id, forked.token);
  if (view.status !== "finished" || view.steps !== STEPS) failures.push(`${at.name}: fork ended ${view.status} at ${view.steps} steps`);
  return { firstLiveMs: model.committedAt - sentAt, createdMs };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  if (baselineAt === undefined) throw new Error("usage: node bench/ts.mjs bench/fork-side-by-side.ts --baseline <a checkout of the code to compare with> [--steps 500] [--forks 7]");
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg().map((value) => value.toFixed(1)).join(" ")}, node ${process.version}`);
  const sides = [await side("baseline", resolve(baselineAt)), await side("this", process.cwd())];
  try {
    const times = new Map<string, { firstLiveMs: number; createdMs: number }[]>(sides.map((s) => [s.name, []]));
    for (let round = 0; round < FORKS; round++) {
      for (const at of round % 2 === 0 ? sides : [...sides].reverse()) times.get(at.name)!.push(await forkOnce(at));
    }
    const [before, after] = sides.map((s) => times.get(s.name)!);
    const first = (list: { firstLiveMs: number }[]) => median(list.map((t) => t.firstLiveMs));
    const made = (list: { createdMs: number }[]) => median(list.map((t) => t.createdMs));
    log(`fork at step ${STEPS - 1} of ${STEPS} → first live model call, p50 of ${FORKS}: baseline ${first(before!).toFixed(0)} ms, this ${first(after!).toFixed(0)} ms, ratio ${(first(after!) / first(before!)).toFixed(2)}×`);
    log(`  of which POST /fork answered 201, p50: baseline ${made(before!).toFixed(0)} ms, this ${made(after!).toFixed(0)} ms`);
    log(`  all (ms, first live): baseline ${before!.map((t) => t.firstLiveMs).join(", ")}; this ${after!.map((t) => t.firstLiveMs).join(", ")}; load at the end ${loadavg().map((value) => value.toFixed(1)).join(" ")}`);
  } finally {
    for (const s of sides) {
      await s.dev.kill();
      rmSync(s.dir, { recursive: true, force: true });
      s.remove();
    }
  }
  verdict(failures, log, "OK");
}

await main();
