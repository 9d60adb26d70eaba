// The Worker's own JavaScript on a run's two requests (`npm run bench:edge`, which bundles this
// file and runs it twice: bench/edge-cpu.mjs): the real Hono app
// (src/http/app.ts: every middleware, auth, body limit, zod, the one intake) answers POST /v1/runs
// with issue 46's body (a scripted run of 200 calculator steps, a 201-turn script, ~19 KB) and
// GET /v1/runs/:id with the run token it got back, in Node, against bindings that answer at once:
// a run namespace whose object returns a stored view, rate limiters that always allow. So what is
// measured is the edge alone, none of workerd's own work per request, no object and no limiter.
// Printed as CPU ms per request (process.cpuUsage over batches, median of rounds).
import { timingSafeEqual } from "node:crypto";
import { createApp } from "../src/http/app";
import { TEST_BINDINGS } from "../test/test-env";

const STEPS = 200;
const ROUNDS = 5;
const BATCH = Number(process.env.EDGE_BENCH_BATCH ?? 300);
const TIER = process.argv[2] ?? "";

// Workers' own extension of SubtleCrypto (src/http/auth/secrets-equal.ts uses it); Node has none.
const bytesOf = (value: ArrayBuffer | ArrayBufferView): Uint8Array => (ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value));
const subtle = crypto.subtle as Partial<Pick<SubtleCrypto, "timingSafeEqual">>;
subtle.timingSafeEqual ??= (a, b) => timingSafeEqual(bytesOf(a), bytesOf(b));

const view = { status: "finished", model: "claude-sonnet-5-5", provider: "scripted", steps: STEPS + 1, maxSteps: STEPS + 5, spentUsd: 0.0585, budgetUsd: 1, lastSeq: 1005, createdAt: "2026-12-07T02:34:32.232Z", updatedAt: "2026-12-07T02:34:32.243Z", stoppedBy: "done", finalText: "done", stopReason: "end_turn" };
const run = {
  create: async (newRun: { id: string }) => ({ ok: true, value: { ...view, id: newRun.id, status: "running", steps: 0, lastSeq: 1 } }),
  viewFor: async () => ({ ok: true, value: view }),
  view: async () => ({ ok: true, value: view }),
  exists: async () => false,
};
const allow = { limit: async () => ({ success: true }) };
const env = {
  ...TEST_BINDINGS,
  DEFAULT_MODEL: "claude-sonnet-5-5",
  ALARM_DELAY_MS: "0",
  MAX_STEPS_LIMIT: "1000",
  RUNS: { idFromName: (name: string) => ({ name }), get: () => run },
  CREATE_RATE_LIMIT: allow,
  RUN_TOKEN_RATE_LIMIT: allow,
  AUTH_FAILURE_RATE_LIMIT: allow,
  SUBJECT_CREATE_RATE_LIMIT: allow,
  AGENT_CARD_RATE_LIMIT: allow,
} as unknown as Env;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
const app = createApp();

const script = Array.from({ length: STEPS }, (_, i) => ({ text: "", toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} * 2` } }] }));
script.push({ text: "done", toolCalls: [] });
const bytes = new TextEncoder().encode(JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "go" }], tools: ["calculator"], maxSteps: STEPS + 5, script }));

/** The body as a network delivers it: a stream of 4 KB chunks, its length declared. */
function chunked(): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 4096));
      at += 4096;
    },
  });
}

async function post(): Promise<{ run: { id: string }; token: string }> {
  const headers = { authorization: `Bearer ${TEST_BINDINGS.API_TOKEN}`, "content-type": "application/json", "content-length": String(bytes.length) };
  const request = new Request("http://127.0.0.1:8787/v1/runs", { method: "POST", headers, body: chunked(), duplex: "half" } as RequestInit);
  const response = await app.fetch(request, env, ctx);
  if (response.status !== 201) throw new Error(`POST /v1/runs: ${response.status} ${await response.text()}`);
  return (await response.json()) as { run: { id: string }; token: string };
}

async function get(id: string, token: string): Promise<void> {
  const response = await app.fetch(new Request(`http://127.0.0.1:8787/v1/runs/${id}`, { headers: { authorization: `Bearer ${token}` } }), env, ctx);
  if (response.status !== 200) throw new Error(`GET /v1/runs/:id: ${response.status} ${await response.text()}`);
  await response.json();
}

/** CPU ms per call of `work`, a median over ROUNDS batches. */
async function cpuPerCall(work: () => Promise<unknown>): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < BATCH; i++) await work();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / 1000 / BATCH);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const first = await post();
for (let i = 0; i < 200; i++) await Promise.all([post(), get(first.run.id, first.token)]);
const postMs = await cpuPerCall(post);
const getMs = await cpuPerCall(() => get(first.run.id, first.token));
console.log(`[bench:edge] ${TIER}: POST /v1/runs (${bytes.length} bytes) ${postMs.toFixed(3)} ms CPU, GET /v1/runs/:id ${getMs.toFixed(3)} ms CPU a request (${ROUNDS} rounds of ${BATCH}, medians)`);
