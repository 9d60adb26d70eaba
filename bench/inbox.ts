// The inbox and webhooks against `wrangler dev` on 127.0.0.1, driven from this separate Node process
// (`npm run bench:inbox`, or `node bench/ts.mjs bench/inbox.ts [--waiting 100] [--list 1000] [--rounds 3]`).
//
//   (1) `waiting` runs of one subject, all asking at about the same moment, while that subject's
//       inbox is watched by one WebSocket and WEBHOOK_URL points at a receiver in this process:
//       the time from each run entering `waiting` (the change's own time, run.updatedAt) to its
//       run-waiting event on the inbox socket, and to the receiver's 2xx for its run.waiting
//       webhook (verified with standardwebhooks). Then every run is answered with the user token.
//   (2) `list` runs of another subject, finished, listed 50 a page with the user token, `rounds`
//       times: the whole listing's time and each page's.
//
// The snapshot's wrangler.toml gets creation limits high enough to create the runs at once (the
// benchmark measures the inbox, not the rate limits). Figures are printed, never asserted; a broken
// invariant (an event missing or repeated, a listing that differs from the runs) prints FAIL.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { LOCAL_WEBHOOK_SECRET } from "../src/config/known-defaults";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { listAllRuns, mintUserToken, watchInbox } from "../test/e2e/support/inbox-watch";
import { median, percentile, summary } from "../test/e2e/support/stats";
import { startWebhookReceiver } from "../test/e2e/support/webhook-receiver";
import { until as poll } from "./support/poll";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";

const WAITING = arg("waiting", 100);
const LIST = arg("list", 1000);
const ROUNDS = arg("rounds", 3);
const CONCURRENCY = 25;
const TOKEN = "dev-token";
const PORT = await freePort();

const log = (line: string) => console.log(`[bench:inbox] ${line}`);
const failures: string[] = [];
const check = (ok: boolean, message: string) => {
  if (!ok) failures.push(message);
};
/** Polls `condition` every 20 ms; a timeout is a failure, and the benchmark goes on to print what it has. */
const until = (condition: () => boolean, timeoutMs: number, what: string) =>
  poll(condition, timeoutMs, () => `timed out waiting for ${what}`, 20).catch((error: Error) => check(false, error.message));

/** Runs `work` for 0..n-1, `CONCURRENCY` at a time. */
async function pool<T>(n: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, n) }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

const create = async (base: string, body: Record<string, unknown>) => (await createRun(base, TOKEN, body)).id;

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-inbox-"));
  const snapshot = snapshotProject();
  const toml = join(snapshot.dir, "wrangler.toml");
  writeFileSync(toml, readFileSync(toml, "utf8").replace(/simple = \{ limit = \d+, period = 60 \}/g, "simple = { limit = 1000000, period = 60 }"));
  const receiver = await startWebhookReceiver(LOCAL_WEBHOOK_SECRET);
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { WEBHOOK_URL: `${receiver.url}/hooks` } });
  try {
    // (1) Runs of one subject waiting at once.
    const subject = `bench-waiting-${Date.now()}`;
    const userToken = await mintUserToken(dev.url, TOKEN, subject);
    const inbox = watchInbox({ base: dev.url, token: userToken, reconnect: true });
    await inbox.opened;
    const ask = (i: number) => ({
      subject,
      messages: [{ role: "user", content: `run ${i}` }],
      tools: ["ask"],
      metadata: { i },
      // Each run asks after its first model call: a few seconds, so that all of them are created before any asks.
      script: [{ text: "One question.", toolCalls: [{ id: "q", name: "ask", input: { question: `Question ${i}?` } }], delayMs: 4000 }, { text: "Thanks." }],
    });
    const createStarted = Date.now();
    const ids = await pool(WAITING, (i) => create(dev.url, ask(i)));
    log(`(1) ${WAITING} runs of one subject created in ${((Date.now() - createStarted) / 1000).toFixed(1)} s (${CONCURRENCY} at a time), each asks after a 4 s model call`);
    const waitingEvents = () => inbox.events.filter((event) => event.type === "run-waiting");
    await until(() => waitingEvents().length >= WAITING, 180_000, `${WAITING} run-waiting events`);
    await until(() => receiver.deliveries.filter((delivery) => delivery.type === "run.waiting").length >= WAITING, 60_000, `${WAITING} run.waiting webhooks`);
    const firstWait = Math.min(...waitingEvents().map((event) => Date.parse(event.run.updatedAt)));
    const lastWait = Math.max(...waitingEvents().map((event) => Date.parse(event.run.updatedAt)));
    const toSocket = waitingEvents().map((event) => event.arrivedAt - Date.parse(event.run.updatedAt));
    const waitingHooks = receiver.deliveries.filter((delivery) => delivery.type === "run.waiting");
    const toHook = waitingHooks.map((delivery) => delivery.answeredAt - Date.parse(delivery.updatedAt));
    log(`(1) the ${WAITING} runs entered waiting within ${((lastWait - firstWait) / 1000).toFixed(2)} s of each other`);
    log(`(1) run enters waiting → run-waiting on the inbox socket: ${summary(toSocket)}`);
    log(`(1) run enters waiting → the webhook receiver's 2xx (run.waiting): ${summary(toHook)}`);
    check(new Set(waitingEvents().map((event) => event.run.id)).size === WAITING, "a run-waiting event is missing or repeated");
    check(waitingHooks.every((delivery) => delivery.verified), "a webhook failed verification");
    check(new Set(waitingHooks.map((delivery) => delivery.id)).size === WAITING, "a run.waiting webhook is missing or repeated");
    const listed = await listAllRuns(dev.url, userToken, { status: "waiting" });
    check(listed.runs.length === WAITING && listed.runs.every((run) => ids.includes(run.id)), `the waiting listing has ${listed.runs.length} runs`);

    // Every run answered with the user token: the answer, then the run-ended event on the inbox.
    const answeredAt = new Map<string, number>();
    await pool(WAITING, async (i) => {
      const id = ids[i]!;
      answeredAt.set(id, Date.now());
      const response = await request(dev.url, `/v1/runs/${id}/answer`, userToken, { method: "POST", body: JSON.stringify({ callId: "q", content: "yes" }) });
      check(response.status === 202, `answer ${id}: ${response.status}`);
      await response.text();
    });
    const ended = () => inbox.events.filter((event) => event.type === "run-ended");
    await until(() => ended().length >= WAITING, 120_000, `${WAITING} run-ended events`);
    const answerToEnd = ended().map((event) => event.arrivedAt - answeredAt.get(event.run.id)!);
    log(`(1) answer sent (POST with the user token) → run-ended on the inbox socket: ${summary(answerToEnd)}`);
    const finishedHooks = () => receiver.deliveries.filter((delivery) => delivery.type === "run.finished");
    await until(() => finishedHooks().length >= WAITING, 60_000, `${WAITING} run.finished webhooks`);
    log(`(1) run finished → the webhook receiver's 2xx (run.finished): ${summary(finishedHooks().map((delivery) => delivery.answeredAt - Date.parse(delivery.updatedAt)))}`);
    check(inbox.duplicates.length === 0 && inbox.gaps.length === 0, `inbox socket: duplicates ${inbox.duplicates.join(",")} gaps ${JSON.stringify(inbox.gaps)}`);
    // The listing equals the runs' own views.
    const all = await listAllRuns(dev.url, userToken);
    const views = await Promise.all(ids.map((id) => getRun(dev.url, id, TOKEN)));
    const differing = views.filter((view) => {
      const listedRun = all.runs.find((run) => run.id === view.id);
      return listedRun === undefined || listedRun.status !== view.status || listedRun.steps !== view.steps;
    });
    check(differing.length === 0, `${differing.length} listed runs differ from their views`);
    inbox.close();

    // (2) Listing 1,000 runs of one subject, 50 at a time.
    const listSubject = `bench-list-${Date.now()}`;
    const listToken = await mintUserToken(dev.url, TOKEN, listSubject);
    const listInbox = watchInbox({ base: dev.url, token: listToken, reconnect: true });
    await listInbox.opened;
    const listStarted = Date.now();
    const listIds = await pool(LIST, (i) => create(dev.url, { subject: listSubject, messages: [{ role: "user", content: `list ${i}` }], metadata: { i }, script: [{ text: "done" }] }));
    await until(() => listInbox.events.filter((event) => event.type === "run-ended").length >= LIST, 600_000, `${LIST} runs ended`);
    log(`(2) ${LIST} runs of one subject created and finished in ${((Date.now() - listStarted) / 1000).toFixed(1)} s`);
    listInbox.close();
    const totals: number[] = [];
    const pages: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const { runs, pageMs } = await listAllRuns(dev.url, listToken, { limit: 50 });
      totals.push(performance.now() - started);
      pages.push(...pageMs);
      check(runs.length === LIST && new Set(runs.map((run) => run.id)).size === LIST && runs.every((run) => listIds.includes(run.id)), `round ${round + 1}: ${runs.length} runs listed`);
      check(runs.every((run, i) => i === 0 || run.createdAt <= runs[i - 1]!.createdAt), `round ${round + 1}: not newest first`);
      log(`(2) round ${round + 1}: ${LIST} runs in ${pageMs.length} pages of 50: ${totals.at(-1)!.toFixed(0)} ms; per page ${summary(pageMs)}`);
    }
    log(`(2) listing ${LIST} runs 50 at a time: median total ${median(totals).toFixed(0)} ms over ${ROUNDS} rounds; per page p50 ${percentile(pages, 50).toFixed(1)} ms, p95 ${percentile(pages, 95).toFixed(1)} ms`);
  } finally {
    await dev.kill();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  if (failures.length > 0) {
    for (const failure of failures.slice(0, 30)) log(`FAIL ${failure}`);
    process.exitCode = 1;
  } else {
    log("OK: every change reached the inbox socket and every webhook its receiver, once; every listing equalled the runs");
  }
}

await main();
