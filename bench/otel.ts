// The cost of trace export, against `wrangler dev` on 127.0.0.1 (`npm run bench:otel`, or
// `node bench/ts.mjs bench/otel.ts [--runs 8] [--steps 40]`). Two settings, one after the other, each on
// a fresh `wrangler dev` with the same runs: export off (no OTEL_EXPORTER_OTLP_ENDPOINT), and export
// on to a local OTLP receiver in this process. Each run makes `steps` model calls with one
// calculator call each (scripted provider), so 2 × steps + 1 spans.
//
// The figures, printed side by side, never asserted:
//   - time per step: a run's createdAt → updatedAt at its end, over its steps (model + tool calls);
//   - step commit → span at the receiver: a span's end time (its step's commit) to its arrival here,
//     p50 and p90 (both clocks are this machine's).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { freePort, listen, readBody, shut } from "../test/e2e/support/http-server";
import { percentile, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { sleep } from "./support/poll";

const RUNS = arg("runs", 8);
const STEPS = arg("steps", 40);
const TOKEN = "dev-token";
const log = (line: string) => console.log(`[bench:otel] ${line}`);

type RunView = { id: string; status: string; createdAt: string; updatedAt: string; steps: number };

/** A create carries an Idempotency-Key, so one `wrangler dev` answered "restarted mid-request" (503) is sent again safely. */
async function api<T>(base: string, path: string, body?: unknown): Promise<T> {
  const key = crypto.randomUUID();
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", "Idempotency-Key": key },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status === 503 && text.includes("restarted") && attempt < 5) continue;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
}

function script(): unknown[] {
  const turns: unknown[] = [];
  for (let i = 1; i < STEPS; i++) turns.push({ text: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });
  turns.push({ text: "Done with every step of this run." });
  return turns;
}

/** Starts RUNS runs at once and answers each one's ms per step once all finished. */
async function measure(base: string): Promise<number[]> {
  const body = { provider: "scripted", messages: [{ role: "user", content: "Count." }], tools: ["calculator"], maxSteps: STEPS, minAnswerChars: 0, script: script() };
  const started = await Promise.all(Array.from({ length: RUNS }, () => api<{ run: RunView }>(base, "/v1/runs", body)));
  const perStep: number[] = [];
  for (const { run } of started) {
    let view = run;
    while (view.status === "running") {
      await sleep(200);
      view = await api<RunView>(base, `/v1/runs/${run.id}`);
    }
    if (view.status !== "finished") throw new Error(`run ${run.id} ended ${view.status}`);
    perStep.push((Date.parse(view.updatedAt) - Date.parse(view.createdAt)) / view.steps);
  }
  return perStep;
}

async function main(): Promise<void> {
  log(`${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`);
  log(`${RUNS} runs at once, ${STEPS} model calls each (one calculator call per call but the last)`);
  const lags: number[] = [];
  let spans = 0;
  const receiver = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request);
      const arrived = Date.now();
      const body = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: { endTimeUnixNano: string }[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) for (const span of scope.spans) {
        spans++;
        lags.push(arrived - Number(BigInt(span.endTimeUnixNano) / 1_000_000n));
      }
      response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    })();
  });
  const receiverPort = await listen(receiver);
  const snapshot = snapshotProject();
  const results: Record<string, number[]> = {};
  try {
    for (const [label, vars] of [["export off", {}], ["export on ", { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}` }]] as const) {
      const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-otel-"));
      const dev = await startDevServer({ port: await freePort(), persistTo: dir, cwd: snapshot.dir, vars });
      try {
        await measure(dev.url); // warm-up
        lags.length = 0;
        spans = 0;
        results[label] = await measure(dev.url);
        await sleep(2_000);
      } finally {
        await dev.kill();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    snapshot.remove();
    await shut(receiver);
  }
  for (const [label, values] of Object.entries(results)) log(`${label}: time per step p50 ${percentile(values, 50).toFixed(1)} ms (${summary(values, "ms", 1)})`);
  log(`spans received (export on): ${spans}; each run exports ${2 * STEPS} (${STEPS} chat, ${STEPS - 1} execute_tool, 1 invoke_agent)`);
  log(`step commit → span at the receiver: p50 ${percentile(lags, 50).toFixed(0)} ms, p90 ${percentile(lags, 90).toFixed(0)} ms (${summary(lags)})`);
}

await main();
