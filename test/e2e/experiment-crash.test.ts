// An experiment through a real crash (issue 49): five recorded scripted runs, an experiment over
// them with two case runs at once, and `wrangler dev` SIGKILLed (its whole process group) when two
// cases have ended and two case runs are held in their second model call (a scripted `hold`, so
// no timer decides where the kill lands), the fifth case still pending. Started again on the same
// storage, the experiment finishes by itself once the holds are released: every case has exactly
// one run, the ended cases' runs are as they were, no case run made a model call or answered a
// tool call twice, every case is scored once and the totals add up.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createRun, getRun, readStoredLog, releaseHold, request } from "./support/api";
import { freePort } from "./support/http-server";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { waitForEnd, waitForEvent } from "./support/run-events";
import { watchRun, type RunWatch } from "./support/run-watch";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";
const CASES = 5;
const TURN_USD = 0.001;

type Frame = { seq: number; type: string; n?: number; runId?: string; case?: { n: number; runId?: string }; spentUsd?: number; status?: string };
type CaseView = { n: number; state: string; runId?: string; scores: { scorer: string; score: number | null }[]; facts?: { spentUsd: number; steps: number; finalText?: string }; divergence?: { fromRecording: number } };
type Experiment = { id: string; status: string; spentUsd: number; reservedUsd: number; progress: Record<string, number>; cases: CaseView[] };

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const frames = (watch: RunWatch) => watch.events.map((event) => JSON.parse(event.text) as Frame);
const startedRun = (watch: RunWatch, n: number) => frames(watch).find((frame) => frame.type === "case-started" && frame.n === n)?.runId;
const ended = (watch: RunWatch) => frames(watch).flatMap((frame) => (frame.type === "case-ended" ? [frame.case!.n] : []));

describe("an experiment through a SIGKILL of wrangler dev", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-experiment-crash-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;
  let port = 0;
  const start = () => startDevServer({ port, persistTo: state, cwd: snapshot.dir, vars: { API_TOKEN: TOKEN } });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
  });

  it("finishes after the restart with no case run twice and every case scored once", async () => {
    port = await freePort();
    dev = await start();
    const base = () => dev!.url;
    const detail = () => dev!.output();

    // The recordings: each asks the calculator 2+2 (in its own words) and answers "Four.".
    const recorded: string[] = [];
    for (let i = 1; i <= CASES; i++) {
      const run = await createRun(base(), TOKEN, {
        tools: ["calculator"],
        minAnswerChars: 0,
        messages: [{ role: "user", content: `Sum number ${i}: what is 2+2?` }],
        script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }], costUsd: TURN_USD }, { text: "Four.", costUsd: TURN_USD }],
      });
      await waitForEnd(base(), run, { detail });
      recorded.push(run.id);
    }
    await json(await request(base(), "/v1/datasets", TOKEN, { method: "POST", body: JSON.stringify({ name: "crash-sums", cases: recorded.map((runId) => ({ runId, recordedReference: true })) }) }), 201);
    // The variant asks the same call (answered from each recording) and holds its answer until released.
    const { experiment } = await json<{ experiment: Experiment }>(
      await request(base(), "/v1/experiments", TOKEN, {
        method: "POST",
        body: JSON.stringify({
          dataset: "crash-sums",
          variant: {
            system: "Answer in one word.",
            script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }], costUsd: TURN_USD }, { hold: "answer", text: "Four.", costUsd: TURN_USD }],
            budget: { usd: 0.05 },
          },
          concurrency: 2,
          budget: { usd: 1 },
          scorers: [{ type: "exact" }, { type: "tool-called", tool: "calculator", input: { expression: "2+2" } }],
          baseline: "recordings",
        }),
      }),
      201,
    );
    const id = experiment.id;

    // Before the kill: cases 1 and 2 run to their end; 3 and 4 start and hold in their answer
    // (their tool call answered and stored); 5 waits for a place.
    let watch = watchRun({ base: base(), id, token: TOKEN, of: "experiments", deadlineMs: 200_000 });
    const caseRun = (n: number) => watch.until(() => startedRun(watch, n) !== undefined, 60_000, () => `case ${n} did not start:\n${detail()}`).then(() => startedRun(watch, n)!);
    for (const n of [1, 2]) await releaseHold(base(), TOKEN, await caseRun(n), "answer");
    await watch.until(() => ended(watch).length === 2, 60_000, () => `cases 1 and 2 did not end:\n${detail()}`);
    const held = [await caseRun(3), await caseRun(4)];
    for (const runId of held) await waitForEvent(base(), runId, TOKEN, (event) => event.type === "tool-result", { what: "its tool result", detail });
    const before = await json<{ experiment: Experiment }>(await request(base(), `/v1/experiments/${id}`, TOKEN));
    expect(before.experiment.progress).toMatchObject({ done: 2, running: 2, pending: 1 });
    const endedRuns = before.experiment.cases.filter((one) => one.state === "done").map((one) => one.runId!);
    const endedLogs = new Map<string, string[]>();
    for (const runId of endedRuns) endedLogs.set(runId, await readStoredLog(base(), runId, TOKEN));
    const lastSeq = watch.lastSeq();

    await dev.kill();
    watch.close();
    dev = await start();

    // After the restart the held answers are released; nothing else is asked of the experiment.
    watch = watchRun({ base: base(), id, token: TOKEN, of: "experiments", after: lastSeq, deadlineMs: 200_000 });
    for (const runId of held) await releaseHold(base(), TOKEN, runId, "answer");
    await releaseHold(base(), TOKEN, await caseRun(5), "answer");
    await watch.until(() => frames(watch).some((frame) => frame.type === "experiment-ended"), 120_000, () => `the experiment did not end:\n${detail()}`);
    watch.close();
    expect(watch.duplicates).toEqual([]);
    expect(watch.gaps).toEqual([]);

    const after = (await json<{ experiment: Experiment }>(await request(base(), `/v1/experiments/${id}`, TOKEN))).experiment;
    expect(after.status).toBe("finished");
    expect(after.progress).toMatchObject({ total: CASES, done: CASES, failed: 0, skipped: 0, running: 0, scoring: 0, pending: 0 });
    expect(after.reservedUsd).toBe(0);

    // Each case has exactly one run: the runs made before the kill kept, one per case.
    const caseRuns = after.cases.map((one) => one.runId);
    expect(new Set(caseRuns).size).toBe(CASES);
    expect(caseRuns.slice(0, 4)).toEqual([...endedRuns, ...held]);
    // The ended cases' runs are unchanged, and no case run did a step twice.
    for (const [runId, log] of endedLogs) expect(await readStoredLog(base(), runId, TOKEN)).toEqual(log);
    for (const one of after.cases) {
      const events = (await readStoredLog(base(), one.runId!, TOKEN)).map((text) => JSON.parse(text) as { seq: number; type: string; step?: number; callId?: string; status?: string });
      expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
      expect(events.filter((event) => event.type === "model").map((event) => event.step), `case ${one.n}`).toEqual([1, 2]);
      expect(events.filter((event) => event.type === "tool-result").map((event) => `${event.step}/${event.callId}`), `case ${one.n}`).toEqual(["1/c1"]);
      expect(events.filter((event) => event.type === "end")).toHaveLength(1);
      expect((await getRun(base(), one.runId!, TOKEN)).status).toBe("finished");
    }

    // The report is complete: every case scored once, from its recording, and the totals add up.
    const log = watchRun({ base: base(), id, token: TOKEN, of: "experiments", deadlineMs: 60_000 });
    await log.until(() => frames(log).some((frame) => frame.type === "experiment-ended"), 60_000, () => "the experiment's log has no end");
    log.close();
    expect(frames(log).map((frame) => frame.seq)).toEqual(frames(log).map((_frame, index) => index + 1));
    expect(frames(log).flatMap((frame) => (frame.type === "case-started" ? [frame.n] : [])).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(ended(log).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(frames(log).filter((frame) => frame.type === "experiment-ended")).toHaveLength(1);
    for (const one of after.cases) {
      expect(one.state).toBe("done");
      expect(one.scores.map((score) => [score.scorer, score.score]), `case ${one.n}`).toEqual([
        ["exact", 1],
        ["tool-called:calculator", 1],
      ]);
      expect(one.divergence?.fromRecording, `case ${one.n}`).toBe(1);
      expect(one.facts).toMatchObject({ steps: 2, spentUsd: 2 * TURN_USD });
    }
    expect(after.spentUsd).toBeCloseTo(CASES * 2 * TURN_USD, 9);
    expect(ended(watch).sort()).toEqual([3, 4, 5]);
    const comparison = (await json<{ comparison: { totals: { cases: number; regressions: number } } }>(await request(base(), `/v1/experiments/${id}/comparison`, TOKEN))).comparison;
    expect(comparison.totals).toMatchObject({ cases: CASES, regressions: 0 });
    const csv = await (await request(base(), `/v1/experiments/${id}/export?format=csv`, TOKEN)).text();
    expect(csv.trim().split("\n")).toHaveLength(CASES + 1);
  }, 300_000);
});
