// Child runs on a real `wrangler dev` with the scripted provider (`npm run bench:children`, or
// `node bench/ts.mjs bench/children.ts [step ms] [quiet seconds]`):
//
// 1. Fan-out: one parent hands 10 children of 5 steps each (4 calls of the calculator with distinct inputs, so the repeat guard never stops them, then an
//    answer; every model call takes `step ms`) out at once, against the same 50 steps in one run.
//    Wall time from the create to the `end` event's timestamp; the ratio says how much the
//    children ran at the same time.
// 2. A waiting parent costs nothing: 10 parents, each with one child whose model call takes the
//    quiet window. While the children work, the parents' `ratchet.replay` log lines are counted
//    (src/durable/run/operator-log.ts: every slice of a running run replays its journal and logs
//    one, so an alarm firing in a waiting parent would show). The count over the whole life of
//    each parent is given too: what its own steps explain.
// 3. Child end → parent's next model call: from the child's `end` event to the parent's
//    `step-start` of step 2 (both events' own timestamps, same machine clock), for the 10 parents
//    of 2 and the fan-out parent of 1.
import { cpus, platform, release, totalmem } from "node:os";
import { createRun, getRun, type Created } from "../test/e2e/support/api";
import { readEventsUntilEnd, type SseEvent } from "../test/e2e/support/sse";
import { percentile, summary } from "../test/e2e/support/stats";
import { sleep, until } from "./support/poll";
import { replayLines } from "./support/replay-lines";
import { withDevServer } from "./support/dev-bench";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const STEP_MS = Number(process.argv[2] ?? "300");
const QUIET_MS = Number(process.argv[3] ?? "15") * 1000;
const CHILDREN = 10;
const CHILD_STEPS = 5;
const PARENTS = 10;
const PORT = await freePort();
const log = (line: string) => console.log(`[bench:children] ${line}`);

type Turn = { text?: string; toolCalls?: { id: string; name: string; input: unknown }[]; delayMs?: number; costUsd?: number };

/** `steps` model calls: every one but the last calls the calculator (each with its own input); the last answers. */
function steps(count: number, label: string, delayMs = STEP_MS): Turn[] {
  return Array.from({ length: count }, (_, i) =>
    i === count - 1 ? { text: `${label}: done.`, delayMs, costUsd: 0.0001 } : { text: `${label} ${i + 1}.`, toolCalls: [{ id: `t${i}`, name: "calculator", input: { expression: `${i} + 1` } }], delayMs, costUsd: 0.0001 },
  );
}

function agent(name: string, script: Turn[]) {
  return { type: "agent", name, description: `${name}: a helper`, run: { provider: "scripted", model: "scripted-model", minAnswerChars: 0, maxSteps: 60, budget: { usd: 0.05 }, tools: ["calculator"], script } };
}

const at = (event: SseEvent | undefined) => Date.parse(String(event?.data.at));

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  log(`model calls of ${STEP_MS} ms (scripted delay), quiet window ${QUIET_MS / 1000} s`);
  const failures: string[] = [];
  await withDevServer({ name: "ratchet-children-bench-", port: PORT, logLevel: "log" }, async (dev) => {
    const events = (run: { id: string; token: string }, timeoutMs = 120_000) => readEventsUntilEnd(`${dev.url}/v1/runs/${run.id}/events`, run.token, timeoutMs);
    // 1. Fan-out against one run of the same steps.
    const flatStart = Date.now();
    const flat = await createRun(dev.url, "dev-token", { messages: [{ role: "user", content: "all of it" }], minAnswerChars: 0, maxSteps: 60, tools: ["calculator"], script: steps(CHILDREN * CHILD_STEPS, "flat") });
    const flatEvents = await events(flat);
    const flatMs = at(flatEvents.at(-1)) - flatStart;
    const flatModels = flatEvents.filter((event) => event.data.type === "model").length;

    const names = Array.from({ length: CHILDREN }, (_, i) => `helper${i}`);
    const treeStart = Date.now();
    const tree = await createRun(dev.url, "dev-token", {
      messages: [{ role: "user", content: "hand it out" }],
      minAnswerChars: 0,
      budget: { usd: 1 },
      tools: names.map((name) => agent(name, steps(CHILD_STEPS, name))),
      script: [{ text: "Handing out.", toolCalls: names.map((name, i) => ({ id: `c${i}`, name, input: { task: `part ${i}` } })), delayMs: STEP_MS }, { text: "All parts done.", delayMs: STEP_MS }],
    });
    const treeEvents = await events(tree);
    const treeMs = at(treeEvents.at(-1)) - treeStart;
    const ended = treeEvents.filter((event) => event.data.type === "child-ended");
    if (ended.length !== CHILDREN || ended.some((event) => event.data.status !== "finished")) failures.push(`fan-out: ${ended.length} children ended finished of ${CHILDREN}`);
    if (treeEvents.at(-1)?.data.status !== "finished") failures.push(`fan-out parent ended ${String(treeEvents.at(-1)?.data.status)}`);
    log(`one run of ${flatModels} model calls: ${flatMs} ms`);
    if (flatModels !== CHILDREN * CHILD_STEPS) failures.push(`the one run made ${flatModels} model calls, not ${CHILDREN * CHILD_STEPS}`);
    log(`one parent with ${CHILDREN} children × ${CHILD_STEPS} steps at once (2 parent steps): ${treeMs} ms`);
    log(`wall time ratio (one run / fan-out): ${(flatMs / treeMs).toFixed(2)}×`);
    const childIds = ended.map((event) => ({ id: String(event.data.childId), token: tree.token }));
    const childLogs = await Promise.all(childIds.map((child) => events(child)));
    const childEnds = childLogs.map((log) => at(log.at(-1)));
    // The children against themselves: from the parent's model call that asks for them (its step-1
    // `model` event) to the last child's `end`, over the slowest child's own creation (its
    // `run-started`) → `end`. 1.0 is ten children made at once that wait on nothing but their steps.
    const childStarts = childLogs.map((log) => at(log.find((event) => event.data.type === "run-started")));
    const slowest = Math.max(...childLogs.map((_log, i) => childEnds[i]! - childStarts[i]!));
    const asked = at(treeEvents.find((event) => event.data.type === "model"));
    const span = Math.max(...childEnds) - asked;
    log(`fan-out: the parent's turn → the last of its ${CHILDREN} children ended: ${span} ms; the slowest child's own creation → end: ${slowest} ms; ratio ${(span / slowest).toFixed(2)}× (target ≤ 1.3×)`);
    log(`fan-out: the children created over ${Math.max(...childStarts) - Math.min(...childStarts)} ms (the parent's turn → the first created: ${Math.min(...childStarts) - asked} ms, → the last: ${Math.max(...childStarts) - asked} ms)`);
    const treeNext = at(treeEvents.find((event) => event.data.type === "step-start" && event.data.step === 2)) - Math.max(...childEnds);
    log(`fan-out: last child's end → parent's next model call: ${treeNext} ms`);

    // 2. Waiting parents: one child each, whose single model call lasts the quiet window.
    const parents: Created[] = [];
    for (let i = 0; i < PARENTS; i++) {
      parents.push(
        await createRun(dev.url, "dev-token", {
          messages: [{ role: "user", content: `wait ${i}` }],
          minAnswerChars: 0,
          tools: [agent("slow", [{ text: "Slow answer.", delayMs: QUIET_MS + 5_000, costUsd: 0.0001 }])],
          script: [{ text: "Asking.", toolCalls: [{ id: "c", name: "slow", input: { task: `slow ${i}` } }] }, { text: "Heard back." }],
        }),
      );
    }
    const ids = new Set(parents.map((parent) => parent.id));
    const slices = () => replayLines(dev.output()).filter((line) => ids.has(line.runId)).length;
    const started = async (parent: Created) => ((await getRun(dev.url, parent.id, parent.token)) as { children?: unknown[] }).children?.length === 1;
    await until(async () => (await Promise.all(parents.map(started))).every(Boolean), 60_000, () => "not every parent started its child");
    await sleep(1_000);
    const before = slices();
    await sleep(QUIET_MS - 2_000);
    const quiet = slices() - before;
    log(`${PARENTS} parents waiting on their children for ${(QUIET_MS - 2_000) / 1000} s: ${quiet} alarm calls (slices) among them`);
    if (quiet !== 0) failures.push(`${quiet} alarm calls in waiting parents`);

    const latencies: number[] = [];
    for (const parent of parents) {
      const parentEvents = await events(parent, QUIET_MS + 60_000);
      const childId = String(parentEvents.find((event) => event.data.type === "child-started")?.data.childId);
      const childEnd = at((await events({ id: childId, token: parent.token })).at(-1));
      latencies.push(at(parentEvents.find((event) => event.data.type === "step-start" && event.data.step === 2)) - childEnd);
      if (parentEvents.at(-1)?.data.status !== "finished") failures.push(`parent ${parent.id} ended ${String(parentEvents.at(-1)?.data.status)}`);
    }
    log(`ratchet.replay lines over each parent's whole life: ${slices() / PARENTS} on average (the slice woken by its child's end replays its journal: the count sees the slices that run)`);
    log(`child end → parent's next model call (${PARENTS} parents of one child): ${summary(latencies)}`);
    log(`all: p50 ${percentile([...latencies, treeNext], 50)} ms`);
  });
  verdict(failures, log, "OK: children run at once, waiting parents make no alarm calls, every parent finishes");
}

await main();
