// Export and replay of long runs against `wrangler dev` on 127.0.0.1 (run by `npm run bench:fork`
// after bench/fork.ts, or `node bench/ts.mjs bench/export-replay.ts [--replays 3] [--timeout 60]`).
//
// Runs of 500 and 2,000 steps (scripted provider: each step but the last a calculator call) run
// to their end. Each is exported (GET /v1/runs/:id/export): the time to the first byte and to the
// last, its bytes, and bytes per 1,000 steps. Then it is replayed in this process with src/replay
// (what `npm run replay` runs), `replays` times: time per 1,000 steps (model steps, as the run view
// counts them). An export that has not ended after `timeout` seconds is given up and printed so.
// `--keep <dir>` writes each recording there (<steps>.json), to profile a replay of it.
// The same file runs against an older checkout (copy it there): it uses only the API and
// replayRecording, which every format's code has.
//
// Figures are printed, never asserted; a wrong outcome (a run not finishing, a replay that
// diverges) prints FAIL.
import { writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { replayRecording } from "../src/replay/replay";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { watchRun } from "../test/e2e/support/run-watch";
import { median } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { withDevServer } from "./support/dev-bench";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const LENGTHS = [500, 2_000];
const REPLAYS = arg("replays", 3);
const TIMEOUT_MS = arg("timeout", 60) * 1000;
const KEEP = process.argv.includes("--keep") ? process.argv[process.argv.indexOf("--keep") + 1] : undefined;
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:export] ${line}`);
const failures: string[] = [];

function script(steps: number) {
  const usage = { inputTokens: 120, outputTokens: 12 };
  const calls = Array.from({ length: steps - 1 }, (_v, i) => ({ text: `Step ${i + 1}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }], costUsd: 0.0001, usage }));
  return [...calls, { text: "done", costUsd: 0.0001, usage }];
}

type Figures = { steps: number; firstByteMs: number; exportMs: number; bytes: number; replayPerThousandMs?: number } | { steps: number; timedOut: true };

/** The export's body read to its end (or until the timeout), with the time to its first and last byte; a string says why there is none. */
async function exportOnce(base: string, id: string, token: string): Promise<{ text: string; firstByteMs: number; ms: number } | string> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  const started = performance.now();
  try {
    const response = await request(base, `/v1/runs/${id}/export`, token, { signal: abort.signal });
    if (response.status !== 200) return `${response.status} after ${((performance.now() - started) / 1000).toFixed(1)} s: ${(await response.text()).slice(0, 200)}`;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let firstByteMs: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstByteMs ??= performance.now() - started;
      text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
    return { text, firstByteMs: firstByteMs ?? 0, ms: performance.now() - started };
  } catch (error) {
    if (abort.signal.aborted) return `no end within ${TIMEOUT_MS / 1000} s`;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function measure(base: string, steps: number): Promise<Figures> {
  const made = performance.now();
  const run = await createRun(base, LOCAL_TOKEN, { messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: steps, minAnswerChars: 0, script: script(steps) });
  const watch = watchRun({ base, id: run.id, token: run.token, reconnect: true, deadlineMs: 1_800_000 });
  await watch.ended;
  watch.close();
  const view = await getRun(base, run.id, run.token);
  if (view.status !== "finished" || view.steps !== steps) failures.push(`the ${steps}-step run ended ${view.status} at ${view.steps} steps`);
  log(`${steps}-step run: ${view.status} in ${((performance.now() - made) / 1000).toFixed(1)} s`);
  const exported = await exportOnce(base, run.id, run.token);
  if (typeof exported === "string") {
    log(`  export: ${exported}`);
    return { steps, timedOut: true };
  }
  const bytes = Buffer.byteLength(exported.text);
  if (KEEP !== undefined) writeFileSync(join(KEEP, `${steps}.json`), exported.text);
  log(`  export: first byte ${exported.firstByteMs.toFixed(0)} ms, whole ${exported.ms.toFixed(0)} ms, ${(bytes / 2 ** 20).toFixed(2)} MiB (${((bytes / 2 ** 20) * (1000 / steps)).toFixed(2)} MiB per 1,000 steps)`);
  const perThousand: number[] = [];
  for (let i = 0; i < REPLAYS; i++) {
    const copy = JSON.parse(exported.text) as Parameters<typeof replayRecording>[0];
    const started = performance.now();
    const result = await replayRecording(copy);
    const ms = performance.now() - started;
    if (!result.ok || result.steps !== steps) failures.push(`replay ${i + 1} of the ${steps}-step run: ${JSON.stringify(result)}`);
    perThousand.push((ms * 1000) / steps);
  }
  const replayPerThousandMs = median(perThousand);
  log(`  replay per 1,000 steps, ${REPLAYS} replays: ${perThousand.map((ms) => ms.toFixed(0)).join(", ")} ms (median ${replayPerThousandMs.toFixed(0)} ms)`);
  return { steps, firstByteMs: exported.firstByteMs, exportMs: exported.ms, bytes, replayPerThousandMs };
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  await withDevServer({ name: "ratchet-export-", port: PORT, vars: { MAX_STEPS_LIMIT: String(Math.max(...LENGTHS)) } }, async (dev) => {
    const figures: Figures[] = [];
    for (const steps of LENGTHS) {
      // An older checkout's export of a long run may take the server down: that is a figure too.
      const measured = await measure(dev.url, steps).catch((error: unknown) => {
        log(`  ${steps} steps: ${error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error)}`);
        return { steps, timedOut: true } as const;
      });
      figures.push(measured);
    }
    const [short, long] = figures as [Figures, Figures];
    if (!("timedOut" in short) && !("timedOut" in long)) {
      log(`recording bytes, ${long.steps} steps / ${short.steps} steps: ${(long.bytes / short.bytes).toFixed(2)}× (target ≤ 4.5×)`);
      log(`replay per 1,000 steps, ${long.steps}-step run / ${short.steps}-step run: ${(long.replayPerThousandMs! / short.replayPerThousandMs!).toFixed(2)}× (target ≤ 1.3×)`);
    }
    log(`load at the end: ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  });
  verdict(failures, log, "OK");
}

await main();
