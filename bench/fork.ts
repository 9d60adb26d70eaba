// Forks and replay against `wrangler dev` on 127.0.0.1 (`npm run bench:fork`, or
// `node bench/ts.mjs bench/fork.ts [--steps 500] [--forks 5] [--replays 5]`).
//
// A `steps`-step run (scripted provider: each step but the last a calculator call) runs to its end.
// Then, `forks` times, POST /v1/runs/:id/fork {atStep: steps - 1} and the time until the fork's
// first live model call: from sending the fork request to its `model` event for step `steps`
// arriving on a socket opened before the request (the scripted model answers at once, so this is
// the fork's creation, the copy of the prefix's journal, its first alarm, the replay of every
// copied step and the one live call). The run object's own replay of the prefix is read from its
// `ratchet.replay` log line. Then the source is exported (GET /v1/runs/:id/export) and replayed in
// this process with src/replay, `replays` times: time per 1,000 recorded steps.
//
// Figures are printed, never asserted; a wrong outcome (the fork not finishing at `steps`, a
// replay that diverges) prints FAIL.
import { cpus, platform, release, totalmem } from "node:os";
import { replayRecording } from "../src/replay/replay";
import type { Recording } from "../src/replay/recording";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { watchRun } from "../test/e2e/support/run-watch";
import { summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { replayLines } from "./support/replay-lines";
import { withDevServer } from "./support/dev-bench";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const STEPS = arg("steps", 500);
const FORKS = arg("forks", 5);
const REPLAYS = arg("replays", 5);
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:fork] ${line}`);
const failures: string[] = [];

function script() {
  const usage = { inputTokens: 120, outputTokens: 12 };
  const calls = Array.from({ length: STEPS - 1 }, (_v, i) => ({ text: `Step ${i + 1}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.0001, usage }));
  return [...calls, { text: "done", costUsd: 0.0001, usage }];
}

/** One fork at STEPS - 1: ms from the request to its step-STEPS model event arriving, and to the 201. */
async function forkOnce(base: string, id: string, token: string): Promise<{ firstLiveMs: number; createdMs: number; forkId: string }> {
  const sentAt = Date.now();
  const started = performance.now();
  const response = await request(base, `/v1/runs/${id}/fork`, token, { method: "POST", body: JSON.stringify({ atStep: STEPS - 1 }) });
  const createdMs = performance.now() - started;
  const text = await response.text();
  if (response.status !== 201) throw new Error(`fork: ${response.status} ${text}`);
  const forked = JSON.parse(text) as { run: { id: string }; token: string };
  // The socket is opened after the 201 (the fork's id is known only then) from the fork's first
  // event, so its model event may come from the backlog: the figure is that event's commit time
  // (`at`, the run object's clock, this machine's) minus the time the request was sent.
  const watch = watchRun({ base, id: forked.run.id, token: forked.token, after: 0, deadlineMs: 120_000 });
  await watch.until(() => watch.events.some((event) => event.type === "model"), 120_000, () => "no model event from the fork");
  await watch.ended;
  watch.close();
  const model = watch.events.find((event) => event.type === "model")!;
  const view = await getRun(base, forked.run.id, forked.token);
  if (view.status !== "finished" || view.steps !== STEPS) failures.push(`fork ${forked.run.id} ended ${view.status} at ${view.steps} steps`);
  const step = (JSON.parse(model.text) as { step?: number }).step;
  if (step !== STEPS) failures.push(`the fork's first model event is step ${step}, not ${STEPS}`);
  return { firstLiveMs: model.committedAt - sentAt, createdMs, forkId: forked.run.id };
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  await withDevServer({ name: "ratchet-fork-", port: PORT, logLevel: "log", vars: { MAX_STEPS_LIMIT: String(STEPS) } }, async (dev) => {
    const made = performance.now();
    const run = await createRun(dev.url, LOCAL_TOKEN, { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: STEPS, minAnswerChars: 0, script: script() });
    const watch = watchRun({ base: dev.url, id: run.id, token: run.token, reconnect: true, deadlineMs: 900_000 });
    await watch.ended;
    watch.close();
    const source = await getRun(dev.url, run.id, run.token);
    if (source.status !== "finished" || source.steps !== STEPS) failures.push(`the source ended ${source.status} at ${source.steps} steps`);
    log(`source: ${STEPS} model steps + ${STEPS - 1} calculator calls, ${source.status} in ${((performance.now() - made) / 1000).toFixed(1)} s`);

    const forks: { firstLiveMs: number; createdMs: number; forkId: string }[] = [];
    // The deployment token: the source has no subject, and a run with none is forked by the deployment token only.
    for (let i = 0; i < FORKS; i++) forks.push(await forkOnce(dev.url, run.id, LOCAL_TOKEN));
    const replays = replayLines(dev.output()).filter((line) => forks.some((fork) => fork.forkId === line.runId));
    log(`fork at step ${STEPS - 1} of ${STEPS} → first live model call (request sent → the fork's step-${STEPS} model event committed), ${FORKS} forks: ${summary(forks.map((fork) => fork.firstLiveMs))}`);
    log(`  of which POST /fork answered 201 (prefix's journal and segments copied): ${summary(forks.map((fork) => fork.createdMs))}`);
    log(`  the fork's object replaying the copied prefix before its first live step ("ratchet.replay" lines): ${replays.map((line) => `${line.replayedSteps} steps in ${line.ms} ms`).join(", ") || "none seen"}`);

    const exportStarted = performance.now();
    const response = await request(dev.url, `/v1/runs/${run.id}/export`, run.token);
    const text = await response.text();
    const exportMs = performance.now() - exportStarted;
    if (response.status !== 200) throw new Error(`export: ${response.status} ${text.slice(0, 300)}`);
    const recording = JSON.parse(text) as Recording;
    const steps = recording.segments.reduce((sum, segment) => sum + segment.steps.length, 0);
    log(`export of the source: ${steps} recorded steps, ${(text.length / 2 ** 20).toFixed(1)} MiB of JSON, in ${exportMs.toFixed(0)} ms`);
    const perThousand: number[] = [];
    for (let i = 0; i < REPLAYS; i++) {
      const copy = JSON.parse(text) as Recording;
      const started = performance.now();
      const result = await replayRecording(copy);
      const ms = performance.now() - started;
      if (!result.ok || result.entries !== steps) failures.push(`replay ${i + 1}: ${JSON.stringify(result)}`);
      perThousand.push((ms * 1000) / steps);
    }
    log(`replay in Node with src/replay (npm run replay), per 1,000 recorded steps, ${REPLAYS} replays: ${summary(perThousand, "ms", 1)}`);
  });
  verdict(failures, log, "OK");
}

await main();
