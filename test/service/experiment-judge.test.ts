// A model-graded rubric scorer (docs/evals.md, "Scorers") on the anthropic provider: the judge is
// called through the real @anthropic-ai/sdk against the fake Anthropic server, its score and reason
// are the case's score, its cost is the case's judgeUsd and part of what the experiment spent, and
// its most (maxUsd) is held against the budget before the case starts. Killed after the judge's
// verdict was stored, the experiment does not call the judge again; killed after the judge answered
// and before its verdict was stored, it calls it once more (a call in flight is made again, as any
// model step) and counts its cost once.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DatasetView, ExperimentView } from "../../src/api/resources/eval-types";
import type { CrashPoint } from "../../src/durable/evals/experiment/experiment-step";
import { JUDGE_SYSTEM } from "../../src/evals/scorers/rubric";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { caseRunIds, driveExperiment, experimentObject, post, recordedRun } from "../helpers/experiments";
import { settle } from "../helpers/inbox";

const RUBRIC = "The answer names the sum in words.";
const JUDGE_USD = 0.0123;
const VERDICT = { score: 0.75, reason: "Right, in one word." };

let counter = 0;

/** A dataset of one recorded run, and an experiment over it scored by a rubric whose judge is `model` on anthropic. */
async function judgedExperiment(model: string, budgetUsd = 1): Promise<string> {
  await script(model, [{ text: `Here is my grade: ${JSON.stringify(VERDICT)}`, cost: JUDGE_USD }]);
  const runId = await recordedRun("2+2", "Four.");
  const name = `judged-${Date.now().toString(36)}-${++counter}`;
  await post<{ dataset: DatasetView }>("/v1/datasets", { name, cases: [{ runId, recordedReference: true }] });
  const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", {
    dataset: name,
    variant: { system: "Answer in words.", script: [{ toolCalls: [{ id: "x1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }], budget: { usd: 0.05 } },
    scorers: [{ type: "exact" }, { type: "rubric", rubric: RUBRIC, provider: "anthropic", model, maxUsd: 0.02 }],
    budget: { usd: budgetUsd },
  });
  return experiment.id;
}

function expectJudged(ended: ExperimentView): void {
  expect(ended, JSON.stringify(ended.cases.map((one) => one.reason))).toMatchObject({ status: "finished", progress: { done: 1 } });
  const [one] = ended.cases;
  expect(one!.scores).toEqual([
    { scorer: "exact", score: 1, reason: expect.any(String) },
    { scorer: "rubric", score: VERDICT.score, reason: VERDICT.reason },
  ]);
  expect(one!.judgeUsd).toBeCloseTo(JUDGE_USD, 9);
  // What the experiment spent: its case run's spend and the judge's call, once.
  expect(ended.spentUsd).toBeCloseTo(one!.facts!.spentUsd + JUDGE_USD, 9);
  expect(ended.reservedUsd).toBe(0);
}

describe("a rubric scorer judged on anthropic", () => {
  it("calls the judge through the SDK, scores the case with its verdict and counts its cost in what the experiment spent", async () => {
    const model = uniqueModel();
    const id = await judgedExperiment(model);
    // Before the case ends, it holds its run's budget and the judge's maxUsd against the experiment's budget.
    await runDurableObjectAlarm(experimentObject(id));
    const started = await runInDurableObject(experimentObject(id), (_instance, state) => state.storage.sql.exec<{ reserved: number }>("SELECT SUM(reserved_usd) AS reserved FROM experiment_case").one().reserved);
    expect(started).toBeCloseTo(0.05 + 0.02, 9);
    const ended = await driveExperiment(id);
    expectJudged(ended);

    const requests = await recorded(model);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.path).toBe("/v1/messages");
    // The SDK's own headers: the deployment's key, and its retry count (the provider's one retry layer).
    expect(request!.headers).toMatchObject({ authorization: "Bearer test-key", "x-stainless-retry-count": "0" });
    expect(request!.body).toMatchObject({ model, stream: true, system: [{ type: "text", text: JUDGE_SYSTEM }] });
    const prompt = JSON.stringify(request!.body!.messages);
    expect(prompt).toContain(RUBRIC);
    expect(prompt).toContain("What is 2+2?");
    expect(prompt).toContain("Four.");
    // The judge's answer tokens are lowered so that the call fits in its maxUsd.
    expect(request!.body!.max_tokens as number).toBeLessThanOrEqual(1_024);
  });

  it("skips a case whose run's budget and judge's maxUsd do not fit in the experiment's budget, and calls no judge", async () => {
    const model = uniqueModel();
    const id = await judgedExperiment(model, 0.06);
    const ended = await driveExperiment(id);
    expect(ended).toMatchObject({ status: "finished", progress: { skipped: 1 } });
    expect(ended.cases[0]!.reason).toContain("judge calls");
    expect(ended.spentUsd).toBe(0);
    expect(await recorded(model)).toHaveLength(0);
  });
});

/** Starts the case, runs its run to its end, then fires the step that scores it with a crash at `point`, and aborts every object. */
async function crashWhileJudging(id: string, point: CrashPoint): Promise<void> {
  await runDurableObjectAlarm(experimentObject(id));
  for (const runId of await caseRunIds(id)) await settle(runId);
  await runInDurableObject(experimentObject(id), (instance) => {
    instance.crash = (reached) => {
      if (reached === point) throw new Error(`crash at ${point}`);
    };
  });
  await runDurableObjectAlarm(experimentObject(id)).catch(() => undefined);
  await abortAllDurableObjects();
}

describe("an experiment killed while judging a case", () => {
  it("after the judge's verdict was stored: the judge is not called again and its cost is counted once", async () => {
    const model = uniqueModel();
    const id = await judgedExperiment(model);
    await crashWhileJudging(id, "judge-recorded");
    expect(await recorded(model)).toHaveLength(1);
    const ended = await driveExperiment(id);
    expectJudged(ended);
    expect(await recorded(model)).toHaveLength(1);
  });

  it("after the judge answered and before its verdict was stored: the judge is called once more, and its cost counted once", async () => {
    const model = uniqueModel();
    const id = await judgedExperiment(model);
    await crashWhileJudging(id, "judge-answered");
    expect(await recorded(model)).toHaveLength(1);
    const ended = await driveExperiment(id);
    expectJudged(ended);
    expect(await recorded(model)).toHaveLength(2);
  });
});
