// A2A's first event against the run's own SSE, against `wrangler dev` on 127.0.0.1 with the
// scripted provider (`npm run bench:agents`, or `node bench/ts.mjs bench/agents-a2a.ts [--trials 30]`).
//
// Side by side, alternating, on one stored agent whose run answers in one model call:
//
//   (1) A2A: `SendStreamingMessage` (a new run of the agent) from the request to (a) its first SSE
//       event, the task, and (b) the first chunk of the model's text (an artifactUpdate).
//   (2) The run's own SSE: `POST /v1/runs {agent}` and then `GET /v1/runs/{id}/events` (SSE), from
//       the create request to (a) the first event, run-started, and (b) the `model` event.
//
// Both make the same run through the same intake; the A2A door adds the JSON-RPC parse, the read
// of the run's view and its event stream through the edge, and the translation. Figures are
// printed, never asserted; the machine is shared, so read the medians side by side, not alone.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/http-server";
import { LOCAL_TOKEN } from "../test/e2e/support/local-vars";
import { percentile, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { sseBlocks, sseField } from "../src/lib/sse/sse-blocks";

const TRIALS = arg("trials", 30);
const log = (line: string) => console.log(`[bench:agents a2a] ${line}`);
const headers = { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" };

/** Reads SSE `data:` payloads from a response, calling `each` with the time each arrives, until `each` says stop. */
async function readSse(response: Response, each: (data: Record<string, unknown>, at: number) => boolean): Promise<void> {
  for await (const block of sseBlocks(response.body!)) {
    const data = sseField(block, "data");
    if (data !== undefined && each(JSON.parse(data) as Record<string, unknown>, performance.now())) return;
  }
}

async function viaA2a(base: string, agent: string, i: number): Promise<{ first: number; text: number }> {
  const start = performance.now();
  const response = await fetch(`${base}/a2a/${agent}`, {
    method: "POST",
    headers: { ...headers, Accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "SendStreamingMessage", params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: `Trial ${i}.` }] } } }),
  });
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) throw new Error(`A2A: ${response.status} ${await response.text()}`);
  let first = Number.NaN;
  let text = Number.NaN;
  await readSse(response, (data, at) => {
    const result = data.result as Record<string, unknown> | undefined;
    if (result === undefined) throw new Error(`A2A stream error: ${JSON.stringify(data)}`);
    if (Number.isNaN(first)) first = at - start;
    if ("artifactUpdate" in result) text = at - start;
    return !Number.isNaN(text);
  });
  return { first, text };
}

async function viaSse(base: string, agent: string, i: number): Promise<{ first: number; text: number }> {
  const start = performance.now();
  const created = await fetch(`${base}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ agent, messages: [{ role: "user", content: `Trial ${i}.` }] }) });
  const body = (await created.json()) as { run?: { id: string } };
  if (body.run === undefined) throw new Error(`create: ${created.status} ${JSON.stringify(body)}`);
  const events = await fetch(`${base}/v1/runs/${body.run.id}/events`, { headers: { ...headers, Accept: "text/event-stream" } });
  let first = Number.NaN;
  let text = Number.NaN;
  await readSse(events, (data, at) => {
    if (Number.isNaN(first)) first = at - start;
    if (data.type === "model") text = at - start;
    return !Number.isNaN(text);
  });
  return { first, text };
}

async function main(): Promise<void> {
  log(`${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}; a shared machine: figures are noisy`);
  const snapshot = snapshotProject();
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-a2a-"));
  const dev = await startDevServer({ port: await freePort(), persistTo: dir, cwd: snapshot.dir });
  try {
    const agent = `bench-${Date.now().toString(36)}`;
    const made = await fetch(`${dev.url}/v1/agents`, { method: "POST", headers, body: JSON.stringify({ name: agent, description: "Answers at once.", run: { provider: "scripted", minAnswerChars: 0, script: [{ text: "Here is the answer." }] } }) });
    if (made.status !== 201) throw new Error(`agent: ${made.status} ${await made.text()}`);
    // Warm-up: the first requests to a fresh wrangler dev compile the Worker.
    await viaSse(dev.url, agent, -1);
    await viaA2a(dev.url, agent, -1);
    const a2a = { first: [] as number[], text: [] as number[] };
    const sse = { first: [] as number[], text: [] as number[] };
    for (let i = 0; i < TRIALS; i++) {
      const one = i % 2 === 0 ? [await viaA2a(dev.url, agent, i), await viaSse(dev.url, agent, i)] : [await viaSse(dev.url, agent, i), await viaA2a(dev.url, agent, i)].reverse();
      a2a.first.push(one[0]!.first);
      a2a.text.push(one[0]!.text);
      sse.first.push(one[1]!.first);
      sse.text.push(one[1]!.text);
    }
    log(`${TRIALS} runs each, alternating:`);
    log(`  first event:  A2A SendStreamingMessage (the task)   ${summary(a2a.first)}`);
    log(`                run's SSE (create + GET events)        ${summary(sse.first)}`);
    log(`  model text:   A2A (first artifactUpdate)             ${summary(a2a.text)}`);
    log(`                run's SSE (the model event)            ${summary(sse.text)}`);
    log(`  p50 ratio A2A / SSE: first event ${(percentile(a2a.first, 50) / percentile(sse.first, 50)).toFixed(2)}, model text ${(percentile(a2a.text, 50) / percentile(sse.text, 50)).toFixed(2)}`);
  } finally {
    await dev.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
