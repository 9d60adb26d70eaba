// Chaos (`npm run chaos`, or `node bench/ts.mjs bench/chaos.ts [--runs 30] [--kills 6] [--seed n]`):
// while runs are in progress, the whole `wrangler dev` process group is SIGKILLed at random
// moments and started again on the same --persist-to. Checked, for every run:
//
//   - it finishes without any client action: half the runs have no client at all until the
//     chaos is over, and the first request ever made to them must already find them finished;
//   - no finished tool call is repeated: at the tool server, no call arrives after the commit of
//     its result (the `at` of its tool-result event), and a call arrives again only across a kill;
//   - no finished model call is repeated: the model is the real provider ("anthropic", the
//     official SDK) talking to the fake Anthropic server in this process, which records every
//     request; a turn's request never arrives after that step's model event was committed, it
//     arrives again only across a kill, and every `model` event's step appears once in the log;
//   - the other half are watched by sockets that reconnect with after=<last seq> after every
//     kill: what each received is gap-free, duplicate-free and identical to the stored log;
//   - every run belongs to one of SUBJECTS subjects (created by the deployment token with
//     `subject`: a user token may not use HTTP tools), and after every restart each subject's
//     listing, read with its user token, lists every run and converges to what the watched runs'
//     own views say (status; for a run that is not running also its steps, spend, stop and
//     times); the untouched runs' views are read only at the end (reading one earlier would be a
//     client request), when every listing must equal every run's view.
//
// Exits non-zero when an invariant breaks. Every loop is bounded in count and in time.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { createRun, getRun, readStoredLog, type Created, type RunView } from "../test/e2e/support/api";
import { sleep, until } from "./support/poll";
import { listAllRuns, mintUserToken, type ListedRun } from "../test/e2e/support/inbox-watch";
import { startFaultToolServer, type FaultToolServer } from "../test/e2e/support/fault-tool-server";
import { watchRun, type RunWatch } from "../test/e2e/support/run-watch";
import { httpTool } from "../test/e2e/support/scripts";
import { snapshotProject, startDevServer, type DevServer } from "../test/e2e/support/dev-server";
import { startFakeAnthropic, type FakeAnthropic } from "../test/fake-anthropic/server";
import type { FakeTurn } from "../test/fake-anthropic/types";
import { arg } from "./support/args";
import { freePort } from "../test/e2e/support/http-server";
import { seededRandom } from "../test/helpers/seeded-random";

const RUNS = arg("runs", 30);
const KILLS = arg("kills", 8);
const STEPS = 10;
const SEED = arg("seed", Date.now() % 100_000);
const TOKEN = "dev-token";
const PORT = await freePort();
const DEADLINE_MS = 10 * 60_000;
/**
 * A request stamped less than this after a kill belongs to the life that was killed. Late stamps
 * measured here are tens of ms; a restart takes over 1.5 s on this machine (2 shared cores).
 */
const ATTRIBUTION_MS = 500;
const SUBJECTS = 3;
/** How long a subject's listing may take to catch up with its runs after a restart. */
const CONVERGE_MS = 60_000;

const log = (line: string) => console.log(`[chaos] ${line}`);

// mulberry32: kill times and step delays reproducible from --seed.
const rand = seededRandom(SEED);
const between = (low: number, high: number) => low + rand() * (high - low);

/** The model name of run `i`: the fake Anthropic server keeps each model's script and requests apart. */
const modelOf = (i: number) => `claude-sonnet-4-5-chaos-${SEED}-${i}`;

/** Ten model steps: nine call `work`, the tenth calls the finish tool `notify`. Model calls take 0.4–1.8 s, tools 0.5–1.5 s: a run takes ~25 s of service time, so kills land while runs are in progress. */
function turns(): FakeTurn[] {
  return Array.from({ length: STEPS }, (_v, s) => ({
    text: s < STEPS - 1 ? `Step ${s + 1}.` : "Done.",
    toolCalls: [{ id: `toolu_${s + 1}`, name: s < STEPS - 1 ? "work" : "notify", input: { n: s + 1 } }],
    delayMs: Math.round(between(400, 1800)),
    cost: 0.001,
  }));
}

/** This chaos run's subjects: new ones each time, so a listing holds this run's runs only. */
const STARTED_AT = Date.now();
const subjectOf = (i: number) => `chaos-${STARTED_AT}-user-${i % SUBJECTS}`;

function body(i: number, tools: FaultToolServer, fake: FakeAnthropic): Record<string, unknown> {
  fake.script(modelOf(i), turns());
  const work = httpTool("work", `${tools.url}/work?ms=500&jitter=1000`);
  const notify = httpTool("notify", `${tools.url}/work?ms=100`);
  return { provider: "anthropic", model: modelOf(i), subject: subjectOf(i), messages: [{ role: "user", content: `chaos run ${i}` }], tools: [work, notify], finishTools: ["notify"], maxSteps: STEPS };
}

type FullView = RunView & { spentUsd: number; createdAt: string; updatedAt: string };

/** What differs between a listed run and its own view: the status always; the rest once it has stopped (a running run's steps move on between its changes). */
function differences(listed: ListedRun | undefined, view: FullView): string[] {
  if (listed === undefined) return ["not listed"];
  const fields: (keyof ListedRun & keyof FullView)[] = view.status === "running" ? ["status", "createdAt"] : ["status", "stoppedBy", "steps", "spentUsd", "createdAt", "updatedAt"];
  return fields.filter((field) => JSON.stringify(listed[field]) !== JSON.stringify(view[field])).map((field) => `${field} ${JSON.stringify(listed[field])} ≠ ${JSON.stringify(view[field])}`);
}

/**
 * Polls until every subject's listing agrees with the runs' views: views, listings, views again;
 * a run whose view moved meanwhile is checked on the next round. Answers the time it took, or the
 * differences left at the deadline.
 */
async function inboxConverged(base: string, runs: Created[], all: number, tokens: Map<string, string>, strict: boolean): Promise<{ ms: number; left: string[] }> {
  const started = Date.now();
  let left: string[] = [];
  while (Date.now() - started < CONVERGE_MS) {
    left = [];
    const before = (await Promise.all(runs.map((run) => getRun(base, run.id, run.token)))) as FullView[];
    const listed = new Map<string, ListedRun>();
    for (const [subject, token] of tokens) {
      for (const run of (await listAllRuns(base, token)).runs) {
        if (run.subject !== subject) left.push(`${run.id} listed for ${subject} but belongs to ${String(run.subject)}`);
        listed.set(run.id, run);
      }
    }
    const after = (await Promise.all(runs.map((run) => getRun(base, run.id, run.token)))) as FullView[];
    runs.forEach((run, i) => {
      const stable = strict || (before[i]!.status === after[i]!.status && before[i]!.updatedAt === after[i]!.updatedAt);
      if (!stable) return;
      for (const difference of differences(listed.get(run.id), after[i]!)) left.push(`${run.id}: ${difference}`);
    });
    if (listed.size !== all) left.push(`${listed.size} runs listed for ${all}`);
    if (left.length === 0) return { ms: Date.now() - started, left };
    await sleep(250);
  }
  return { ms: Date.now() - started, left };
}

type Stored = { seq: number; at: string; type: string; step?: number; callId?: string; name?: string; status?: string; stoppedBy?: string; steps?: number };

/** The number of assistant messages in a Messages API request body: the turn it asks for. */
function assistantCount(body: Record<string, unknown> | undefined): number {
  const messages = Array.isArray(body?.messages) ? (body.messages as Array<{ role?: unknown }>) : [];
  return messages.filter((message) => message.role === "assistant").length;
}

async function main(): Promise<void> {
  log(`machine: ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}; seed ${SEED}`);
  const dir = mkdtempSync(join(tmpdir(), "ratchet-chaos-"));
  const tools = await startFaultToolServer();
  const fake = await startFakeAnthropic();
  const snapshot = snapshotProject();
  const vars = { ANTHROPIC_API_KEY: "chaos-key", ANTHROPIC_BASE_URL: fake.url };
  const start = () => startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars });
  let dev: DevServer = await start();
  const failures: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) failures.push(message);
  };
  const kills: { at: number; inFlightTools: number; restartMs: number; convergeMs: number }[] = [];
  const userTokens = new Map<string, string>();
  const watches = new Map<string, RunWatch>();
  const started = Date.now();
  try {
    for (let s = 0; s < SUBJECTS; s++) userTokens.set(subjectOf(s), await mintUserToken(dev.url, TOKEN, subjectOf(s)));
    const runs: Created[] = await Promise.all(Array.from({ length: RUNS }, (_v, i) => createRun(dev.url, TOKEN, body(i, tools, fake))));
    const watched = runs.slice(0, Math.ceil(RUNS / 2));
    const untouched = runs.slice(Math.ceil(RUNS / 2));
    for (const run of watched) watches.set(run.id, watchRun({ base: dev.url, id: run.id, token: run.token, reconnect: true, deadlineMs: DEADLINE_MS }));

    const finishCall = (run: Created) => [...tools.calls.values()].find((call) => call.key.startsWith(`${run.id}/`) && call.route === "/work" && call.key.includes(`/tool/${STEPS}/`));
    const finished = (run: Created) => (finishCall(run)?.answers.length ?? 0) > 0;
    const inProgress = () => runs.filter((run) => !finished(run)).length;

    // The kills: each at a random moment 0.2–4 s after the server came back, while runs are in progress.
    for (let k = 0; k < KILLS && inProgress() > 0 && Date.now() - started < DEADLINE_MS; k++) {
      await sleep(between(200, 4000));
      if (inProgress() === 0) break;
      const inFlightTools = [...tools.calls.values()].filter((call) => call.arrivals.length > call.answers.length + call.abandoned).length;
      const at = Date.now();
      await dev.kill();
      const restartAt = Date.now();
      dev = await start();
      const restartMs = Date.now() - restartAt;
      // The listing catches up with the runs by the runs' own alarms (their outboxes), no client action.
      const converged = await inboxConverged(dev.url, watched, runs.length, userTokens, false);
      check(converged.left.length === 0, `after kill ${k + 1} the listings did not converge within ${CONVERGE_MS} ms: ${converged.left.slice(0, 5).join("; ")}`);
      kills.push({ at, inFlightTools, restartMs, convergeMs: converged.ms });
      log(`kill ${k + 1} at +${((at - started) / 1000).toFixed(1)} s: ${inProgress()} runs in progress, ${inFlightTools} tool calls in flight; restarted in ${restartMs} ms; listings equal to the runs' views ${converged.ms} ms later`);
    }
    check(kills.length >= Math.min(KILLS, 5), `only ${kills.length} kills landed while runs were in progress`);

    // No client action: wait at the tool server until every run has called its finish tool.
    await until(() => inProgress() === 0, DEADLINE_MS, () => `${inProgress()} runs never called their finish tool`, 100);
    const lastFinish = Math.max(...runs.map((run) => finishCall(run)!.answers[0]!));
    await sleep(Math.max(0, lastFinish + 2000 - Date.now()));

    // The first request ever made to an untouched run must find it finished. (The listings were read
    // after every kill, which makes no request to any run.)
    const firstLook = await Promise.all(untouched.map((run) => getRun(dev.url, run.id, run.token)));
    firstLook.forEach((view, i) => check(view.status === "finished", `untouched run ${untouched[i]!.id} was ${view.status} at the first request`));
    await Promise.allSettled([...watches.values()].map((watch) => watch.ended));

    let resends = 0;
    let reconnects = 0;
    let modelCalls = 0;
    let modelCallsFinished = 0;
    let modelResends = 0;
    let modelFinishedTwice = 0;
    let toolAnsweredTwice = 0;
    /** For each answer sent twice: ms from the first answer being written to the kill that cut its commit (negative: written after the kill began). */
    const answeredToKillMs: number[] = [];
    const rel = (ms: number) => `+${((ms - started) / 1000).toFixed(2)}s`;
    // Which server life sent a request: the number of kills before it. The servers here stamp a
    // request when their (busy) event loop gets to it, up to tens of ms after a dying server sent
    // it; a restarted server needs over a second before it can send anything. So a request stamped
    // less than ATTRIBUTION_MS after a kill is the old life's (both margins are checked below).
    const lifeOf = (at: number) => kills.filter((kill) => kill.at + ATTRIBUTION_MS < at).length;
    /** The kill that ended the life which got the answer at `answeredAt` (it may have begun just before the answer was stamped). */
    const answerToKill = (answeredAt: number, resentAt: number) => {
      const kill = kills.find((k) => k.at + ATTRIBUTION_MS > answeredAt && k.at < resentAt);
      return kill === undefined ? undefined : kill.at - answeredAt;
    };
    for (const run of runs) {
      const texts = await readStoredLog(dev.url, run.id, run.token);
      const events = texts.map((text) => JSON.parse(text) as Stored);
      const label = run.id;
      check(events.every((event, i) => event.seq === i + 1), `${label}: the stored log is not gap-free from 1`);
      const end = events.filter((event) => event.type === "end");
      check(end.length === 1 && end[0]!.status === "finished" && end[0]!.stoppedBy === "finish-tool" && end[0]!.steps === STEPS, `${label}: end ${JSON.stringify(end)}`);
      const modelSteps = events.filter((event) => event.type === "model").map((event) => event.step);
      check(JSON.stringify(modelSteps) === JSON.stringify(Array.from({ length: STEPS }, (_v, i) => i + 1)), `${label}: model steps ${modelSteps.join(",")}`);
      // Model calls, counted at the fake Anthropic server: the request for step k holds k - 1
      // assistant messages. None arrives after step k's model event was committed; one arrives
      // again only when a kill fell between its first arrival and the commit.
      const requests = fake.requests(modelOf(runs.indexOf(run)));
      for (const model of events.filter((event) => event.type === "model")) {
        const committed = Date.parse(model.at);
        const stepRequests = requests.filter((request) => assistantCount(request.body) === model.step! - 1);
        const tries = stepRequests.map((request) => request.arrivedAt);
        const finishedTries = stepRequests.filter((request) => request.endedAt !== undefined && !request.aborted);
        check(tries.length >= 1, `${label}: step ${model.step} has a model event but its model call never reached the fake server`);
        check(tries.every((arrival) => arrival <= committed), `${label}: step ${model.step}'s model call was sent after its commit at ${model.at}`);
        for (let i = 1; i < tries.length; i++) {
          check(
            lifeOf(tries[i]!) > lifeOf(tries[i - 1]!),
            `${label}: step ${model.step}'s model call was sent again by the same server life (requests ${stepRequests.map((r) => `${rel(r.arrivedAt)}→${r.endedAt === undefined ? "-" : rel(r.endedAt)}${r.aborted ? " aborted" : ""} ${r.outcome}`).join(", ")}; committed ${rel(committed)}; kills ${kills.map((k) => rel(k.at)).join(" ")})`,
          );
        }
        modelCalls += tries.length;
        modelCallsFinished += finishedTries.length;
        modelResends += tries.length - 1;
        // A finished answer the object never committed: the kill came between the answer's end and the commit.
        modelFinishedTwice += Math.max(0, finishedTries.length - 1);
        for (const [n, first] of finishedTries.slice(0, -1).entries()) {
          const gap = answerToKill(first.endedAt!, finishedTries[n + 1]!.arrivedAt);
          if (gap !== undefined) answeredToKillMs.push(gap);
        }
      }
      const results = events.filter((event) => event.type === "tool-result");
      check(new Set(results.map((event) => event.callId)).size === results.length && results.length === STEPS, `${label}: ${results.length} tool results`);

      // Tool calls, counted at the tool server.
      const calls = [...tools.calls.values()].filter((call) => call.key.startsWith(`${run.id}/`));
      check(calls.length === STEPS, `${label}: ${calls.length} distinct tool calls at the server`);
      for (const call of calls) {
        const result = results.find((event) => call.key.endsWith(`/${event.callId}`) && call.key.includes(`/tool/${event.step}/`));
        if (result === undefined) {
          check(false, `${label}: no tool-result for ${call.key}`);
          continue;
        }
        const committed = Date.parse(result.at);
        const late = call.arrivals.filter((arrival) => arrival > committed);
        check(late.length === 0, `${call.key}: ${late.length} sends after its result was committed at ${result.at}`);
        for (let i = 1; i < call.arrivals.length; i++) {
          const [before, after] = [call.arrivals[i - 1]!, call.arrivals[i]!];
          check(
            lifeOf(after) > lifeOf(before),
            `${call.key}: sent again by the same server life (arrivals ${call.arrivals.map(rel).join(" ")}, answers ${call.answers.map(rel).join(" ")}, abandoned ${call.abandonedAt.map(rel).join(" ")}; kills ${kills.map((k) => rel(k.at)).join(" ")}; result committed ${rel(committed)})`,
          );
        }
        resends += call.arrivals.length - 1;
        for (const [n, answered] of call.answers.slice(0, -1).entries()) {
          toolAnsweredTwice++;
          const next = call.arrivals.find((arrival) => arrival > answered) ?? call.arrivals[n + 1]!;
          const gap = answerToKill(answered, next);
          if (gap !== undefined) answeredToKillMs.push(gap);
        }
      }

      const watch = watches.get(run.id);
      if (watch !== undefined) {
        reconnects += watch.connections - 1;
        check(watch.duplicates.length === 0 && watch.gaps.length === 0, `${label}: watcher saw duplicates ${watch.duplicates.join(",")} gaps ${JSON.stringify(watch.gaps)}`);
        const same = watch.events.length === texts.length && watch.events.every((event, i) => event.text === texts[i]);
        check(same, `${label}: the reconnecting watcher's ${watch.events.length} events differ from the stored log's ${texts.length}`);
      }
    }
    const stamps = [...[...tools.calls.values()].flatMap((call) => call.arrivals), ...runs.flatMap((_run, i) => fake.requests(modelOf(i)).map((request) => request.arrivedAt))];
    const lateStamps = stamps.flatMap((at) => kills.filter((kill) => kill.at < at && at <= kill.at + ATTRIBUTION_MS).map((kill) => at - kill.at));
    check(kills.every((kill) => kill.restartMs > 2 * ATTRIBUTION_MS), `a restart took less than ${2 * ATTRIBUTION_MS} ms: requests cannot be told apart by server life`);
    check(lateStamps.every((ms) => ms < ATTRIBUTION_MS / 2), `a dying server's request was stamped ${ATTRIBUTION_MS / 2} ms or more after its kill: requests cannot be told apart by server life`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`${RUNS} runs × ${STEPS} model steps + ${STEPS} HTTP tool calls; ${kills.length} SIGKILLs of the wrangler dev process group (${kills.map((kill) => kill.inFlightTools).join(", ")} tool calls in flight); restarts took ${kills.map((kill) => kill.restartMs).join(", ")} ms; ${seconds} s in all`);
    log(`untouched runs (no client until the end): ${firstLook.filter((view) => view.status === "finished").length}/${untouched.length} finished at the first request`);
    log(`model calls at the fake Anthropic server: ${modelCalls} requests for ${RUNS * STEPS} model events (each step once per run), ${modelResends} resends of calls in flight at a kill, none after a commit; answers completely sent: ${modelCallsFinished}, of which ${modelFinishedTwice} were a second complete answer for the same step (the first one's commit was cut by the kill)`);
    log(`tool calls: ${[...tools.calls.values()].length} distinct, ${resends} resends of calls in flight at a kill (same Idempotency-Key), none after a commit; ${toolAnsweredTwice} answered twice (the first answer's commit was cut by the kill)`);
    log(`requests stamped at the servers after a kill began (sent by the dying life, read late by this busy process): ${lateStamps.length}, at most ${Math.max(0, ...lateStamps)} ms after`);
    log(`answers sent twice (model or tool): the kill came ${answeredToKillMs.sort((a, b) => a - b).join(", ") || "–"} ms after the first answer was written (negative: written into a server already being killed), before the object could commit it`);
    log(`watched runs: ${watched.length}, sockets reconnected ${reconnects} times with after=<last seq>; every watcher's events identical to the stored log: ${failures.every((f) => !f.includes("watcher"))}`);
    const final = await inboxConverged(dev.url, runs, runs.length, userTokens, true);
    check(final.left.length === 0, `at the end the listings differ from the runs: ${final.left.slice(0, 5).join("; ")}`);
    log(`inbox: ${SUBJECTS} subjects' listings held every run and equalled the watched runs' views after every kill (converged ${kills.map((kill) => kill.convergeMs).join(", ")} ms after the restart); equal to every run's view at the end: ${final.left.length === 0}`);
  } finally {
    for (const watch of watches.values()) watch.close();
    await dev.kill();
    await tools.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  if (failures.length > 0) {
    for (const failure of failures.slice(0, 30)) log(`FAIL ${failure}`);
    log(`FAIL: ${failures.length} broken invariants (seed ${SEED})`);
    process.exitCode = 1;
  } else {
    log(`OK: every run finished by itself; no finished model or tool call repeated; every reconnecting client saw the stored log exactly (seed ${SEED})`);
  }
}

await main();
