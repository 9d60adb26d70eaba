// Token comparison timing seen from outside, as an attacker would (`npm run bench:auth`, or
// `node bench/ts.mjs bench/auth-timing-http.ts [--samples 2000]`): requests to `wrangler dev` on
// 127.0.0.1 with tokens that share 0, half, and all but one leading characters with the real one,
// interleaved in a new random order every round, timed with Node's high-resolution clock.
//
//   - POST /v1/runs with a wrong deployment token (the real one is a random 64-character secret,
//     given with --var API_TOKEN): 401;
//   - GET /v1/runs/:id with a wrong run token (43 characters after rt_, the real one is the run's): 404.
//
// Printed, never asserted.
import { mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { cpus, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { createRun } from "../test/e2e/support/api";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { mean, median, percentile } from "../test/e2e/support/stats";
import { prefixCandidates, shuffle } from "./support/prefix-candidates";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";

const SAMPLES = arg("samples", 1500);
const PORT = await freePort();
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const log = (line: string) => console.log(`[bench:auth-http] ${line}`);

const randomText = (length: number) => Array.from(randomBytes(length), (b) => BASE64URL[b % 64]).join("");

async function measure(name: string, candidates: { label: string; value: string }[], send: (token: string) => Promise<number>, expected: number): Promise<void> {
  const samples = new Map(candidates.map((c) => [c.label, [] as number[]]));
  for (let i = 0; i < 100; i++) for (const c of candidates) await send(c.value); // warm-up
  for (let round = 0; round < SAMPLES; round++) {
    for (const c of shuffle(candidates)) {
      const started = process.hrtime.bigint();
      const status = await send(c.value);
      const elapsed = Number(process.hrtime.bigint() - started) / 1000;
      if (status !== expected) throw new Error(`${name}: ${c.label} answered ${status}, expected ${expected}`);
      samples.get(c.label)!.push(elapsed);
    }
  }
  log(`${name}: ${SAMPLES} interleaved rounds, µs per request`);
  for (const c of candidates) {
    const values = samples.get(c.label)!;
    log(`    ${c.label.padEnd(20)} mean ${mean(values).toFixed(1)}  median ${median(values).toFixed(1)}  p10 ${percentile(values, 10).toFixed(1)}  p90 ${percentile(values, 90).toFixed(1)}`);
  }
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}`);
  const apiToken = randomText(64);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-auth-"));
  const snapshot = snapshotProject();
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { API_TOKEN: apiToken } });
  try {
    await measure(
      "POST /v1/runs with a wrong deployment token (real: 64 random characters)",
      prefixCandidates(apiToken, BASE64URL),
      async (token) => {
        const response = await fetch(`${dev.url}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{}" });
        await response.arrayBuffer();
        return response.status;
      },
      401,
    );
    const run = await createRun(dev.url, apiToken, { messages: [{ role: "user", content: "timing" }], script: [{ text: "done" }] });
    await measure(
      "GET /v1/runs/:id with a wrong run token (real: the run's own)",
      prefixCandidates(run.token, BASE64URL, 3),
      async (token) => {
        const response = await fetch(`${dev.url}/v1/runs/${run.id}`, { headers: { Authorization: `Bearer ${token}` } });
        await response.arrayBuffer();
        return response.status;
      },
      404,
    );
  } finally {
    await dev.kill();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
}

await main();
