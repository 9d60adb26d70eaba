// Messages while a run works, against `wrangler dev` on 127.0.0.1 with the fake Anthropic server
// (test/fake-anthropic) as the model, driven from this Node process (`npm run bench:messages`, or
// `node bench/ts.mjs bench/messages.ts [--trials 30] [--delay 400]`).
//
// The figure: message → in the next model request, i.e. the time from sending
// `POST /v1/runs/:id/messages` to the fake receiving the model request that holds the message (its
// `arrivedAt`; both clocks are this machine's). Two settings, each `trials` runs:
//
//   (1) interrupt: the run's model call streams its first words and holds; the message aborts it,
//       and the call is made again with the message. All of the figure is the service's own work
//       (the message stored, the call aborted, the take journaled, the request rebuilt and sent).
//   (2) queue: the run's model call answers after `delay` ms; the message is sent as soon as that
//       call's request arrived, and goes into the next request. The figure then holds the rest of
//       that call; "answer end → next request" is the service's own part (the answer journaled, the
//       take, the request built and sent).
//
// Figures are printed, never asserted; a message not in the request after it, or in two, prints FAIL.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic } from "../test/fake-anthropic/server";
import type { FakeTurn, RecordedRequest } from "../test/fake-anthropic/types";
import { vendorControl } from "../test/helpers/fake-vendor-control";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { percentile, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";

const TRIALS = arg("trials", 30);
const DELAY_MS = arg("delay", 400);
const TOKEN = "dev-token";
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:messages] ${line}`);
const failures: string[] = [];

async function api<T>(base: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** How many of the requests hold `text`. */
const holding = (requests: RecordedRequest[], text: string) => requests.filter((request) => request.raw.includes(text)).length;

async function trial(base: string, control: ReturnType<typeof vendorControl<FakeTurn, object, RecordedRequest>>, mode: "queue" | "interrupt", i: number): Promise<{ total: number; own: number }> {
  const model = `claude-sonnet-4-5-bench-${mode}-${i}-${Date.now()}`;
  const first: FakeTurn = mode === "interrupt" ? { text: "A long essay that never ends.", failures: [{ hang: true }] } : { text: "Working on it.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }], delayMs: DELAY_MS };
  await control.script(model, [first, { text: "Answered, with your message in view." }]);
  const { run } = await api<{ run: { id: string } }>(base, "/v1/runs", { provider: "anthropic", model, messages: [{ role: "user", content: "Write." }], tools: ["calculator"], minAnswerChars: 0 });
  await control.requestsWhen(model, { requests: 1 });
  const text = `message ${mode} ${i} ${crypto.randomUUID()}`;
  const sentAt = Date.now();
  await api(base, `/v1/runs/${run.id}/messages`, { content: text, mode });
  const requests = await control.requestsWhen(model, { requests: 2, aborted: mode === "interrupt" ? 1 : 0 });
  const next = requests[1]!;
  if (!next.raw.includes(text)) failures.push(`${mode} ${i}: the message is not in the next model request`);
  if (holding(requests, text) !== 1) failures.push(`${mode} ${i}: the message is in ${holding(requests, text)} requests`);
  const total = next.arrivedAt - sentAt;
  const own = mode === "interrupt" ? total : next.arrivedAt - (requests[0]!.endedAt ?? next.arrivedAt);
  return { total, own };
}

async function main(): Promise<void> {
  const machine = `${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
  log(machine);
  const fake = await startFakeAnthropic();
  const control = vendorControl<FakeTurn, object, RecordedRequest>("Anthropic", () => fake.url);
  const snapshot = snapshotProject();
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-messages-"));
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: fake.url } });
  try {
    for (const mode of ["interrupt", "queue"] as const) {
      const totals: number[] = [];
      const own: number[] = [];
      // One warm-up run first: the first request to a fresh wrangler dev compiles the Worker.
      await trial(dev.url, control, mode, -1);
      for (let i = 0; i < TRIALS; i++) {
        const figures = await trial(dev.url, control, mode, i);
        totals.push(figures.total);
        own.push(figures.own);
      }
      log(`${mode}, ${TRIALS} runs${mode === "queue" ? ` (model call in flight answers after ${DELAY_MS} ms)` : " (model call in flight holds until aborted)"}:`);
      log(`  message → in the next model request: p50 ${percentile(totals, 50).toFixed(0)} ms, p90 ${percentile(totals, 90).toFixed(0)} ms (${summary(totals)})`);
      if (mode === "queue") log(`  answer end → next model request (the service's own part): p50 ${percentile(own, 50).toFixed(0)} ms, p90 ${percentile(own, 90).toFixed(0)} ms (${summary(own)})`);
    }
  } finally {
    await dev.kill();
    snapshot.remove();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    for (const failure of failures) log(`FAIL ${failure}`);
    process.exit(1);
  }
}

await main();
