// Web Push against `wrangler dev` on 127.0.0.1 (`npm run bench:push`, or
// `node bench/ts.mjs bench/push.ts [--runs 30] [--together 50]`): the local push service of the tests
// (test/push-service/server.ts) in this process checks every push (VAPID, decrypted with http_ece).
//
//   (1) `runs` runs of one subject with one subscription, one after another: the time from the run
//       entering `waiting` (the change's own time, its view's updatedAt) to the push request
//       arriving at the push service.
//   (2) `together` runs of another subject with three subscriptions, all asking at about the same
//       moment: the same time for each of the 3 × `together` pushes.
//
// Figures are printed, never asserted; a push missing, repeated or failing its checks prints FAIL.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startPushService, type PushService } from "../test/push-service/server";
import type { NewSubscription, ReceivedPush } from "../test/push-service/types";
import { createRun, getRun, request } from "../test/e2e/support/api";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { localVars } from "../test/e2e/support/local-vars";
import { summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const RUNS = arg("runs", 30);
const TOGETHER = arg("together", 50);
const TOKEN = "dev-token";
const PORT = await freePort();

const log = (line: string) => console.log(`[bench:push] ${line}`);
const failures: string[] = [];
const check = (ok: boolean, message: string) => {
  if (!ok) failures.push(message);
};

function asking(subject: string, i: number, delayMs: number) {
  return { provider: "scripted", subject, messages: [{ role: "user", content: `run ${i}` }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: `Question ${i}?` } }], delayMs }, { text: "Thanks." }] };
}

/** Milliseconds from each run entering waiting to its push's arrival, per subscription. */
async function latencies(base: string, service: PushService, subscriptions: NewSubscription[], runs: { id: string }[]): Promise<number[]> {
  const waitedAt = new Map<string, number>();
  for (const run of runs) waitedAt.set(run.id, Date.parse((await getRun(base, run.id, TOKEN) as unknown as { updatedAt: string }).updatedAt));
  const out: number[] = [];
  for (const subscription of subscriptions) {
    const pushes: ReceivedPush[] = service.pushes(subscription.id);
    check(pushes.every((push) => push.verified), `a push to ${subscription.id} failed its checks: ${pushes.flatMap((push) => push.problems).join("; ")}`);
    const ids = pushes.map((push) => String(push.payload?.runId));
    check(new Set(ids).size === ids.length && ids.length === runs.length, `${subscription.id}: ${ids.length} pushes for ${runs.length} runs`);
    for (const push of pushes) out.push(push.arrivedAt - waitedAt.get(String(push.payload?.runId))!);
  }
  return out;
}

async function subscribe(base: string, subject: string, subscription: NewSubscription): Promise<void> {
  const response = await request(base, `/v1/push/subscriptions?subject=${subject}`, TOKEN, { method: "POST", body: JSON.stringify({ endpoint: subscription.endpoint, keys: subscription.keys }) });
  check(response.status === 201, `subscribe: ${response.status}`);
  await response.text();
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-push-"));
  const snapshot = snapshotProject();
  const toml = join(snapshot.dir, "wrangler.toml");
  writeFileSync(toml, readFileSync(toml, "utf8").replace(/simple = \{ limit = \d+, period = 60 \}/g, "simple = { limit = 1000000, period = 60 }"));
  const service = await startPushService(localVars().VAPID_PUBLIC_KEY!);
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { PUSH_HOSTS: "http://127.0.0.1", SUBJECT_BUDGET_USD_PER_DAY: "100000" } });
  try {
    // (1) One at a time.
    const one = `bench-push-one-${Date.now()}`;
    const phone = service.subscribe();
    await subscribe(dev.url, one, phone);
    const sequential: { id: string }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const created = await createRun(dev.url, TOKEN, asking(one, i, 0));
      sequential.push(created.run);
      await service.until(() => service.pushes(phone.id).length > i, 30_000, () => `the push of run ${i} did not arrive`).catch((error: Error) => check(false, error.message));
    }
    log(`(1) ${RUNS} runs, one after another, one subscription: run enters waiting → push request at the push service: ${summary(await latencies(dev.url, service, [phone], sequential))}`);

    // (2) Many at once, three subscriptions each.
    const many = `bench-push-many-${Date.now()}`;
    const devices = [service.subscribe(), service.subscribe(), service.subscribe()];
    for (const device of devices) await subscribe(dev.url, many, device);
    const together = await Promise.all(Array.from({ length: TOGETHER }, async (_unused, i) => (await createRun(dev.url, TOKEN, asking(many, i, 3000))).run));
    await service
      .until(() => devices.every((device) => service.pushes(device.id).length >= TOGETHER), 120_000, () => `${TOGETHER} pushes to each of 3 subscriptions did not arrive`)
      .catch((error: Error) => check(false, error.message));
    log(`(2) ${TOGETHER} runs asking together, three subscriptions (${3 * TOGETHER} pushes): run enters waiting → push request at the push service: ${summary(await latencies(dev.url, service, devices, together))}`);
  } finally {
    await dev.kill();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  verdict(failures, log, "OK: every push arrived once, with a VAPID JWT that verifies and a payload that decrypts");
}

await main();
