// Evals end to end inside workerd (docs/evals.md): recorded runs made a dataset, an experiment with a
// changed system prompt whose case runs answer their tool calls from the recordings, scored, with
// divergence and a comparison against the recordings; every case run with the default budgets, a
// tight budget never spent past, skipped cases compared as regressions; a case run refused in mode
// replay; cancel; and the routes' errors.
import { describe, expect, it } from "vitest";
import type { Comparison, ExperimentView } from "../../src/api/resources/eval-types";
import type { DatasetView } from "../../src/api/resources/eval-types";
import type { RunView } from "../../src/api/types";
import { api } from "../helpers/service-client";
import { driveExperiment, post, recordedRun } from "../helpers/experiments";
import { TEST_API_TOKEN } from "../test-env";

let counter = 0;
const fresh = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}`;

const SCORERS = [{ type: "exact" }, { type: "tool-called", tool: "calculator" }];

async function dataset(runIds: string[]): Promise<string> {
  const name = fresh("math");
  const { dataset } = await post<{ dataset: DatasetView }>("/v1/datasets", { name, cases: runIds.map((runId) => ({ runId, recordedReference: true })) });
  expect(dataset).toMatchObject({ name, version: 1, cases: runIds.map((runId, i) => ({ n: i + 1, runId, addedIn: 1 })) });
  return name;
}

describe("an experiment on recorded runs", () => {
  it("runs each case as a fork of its recording, answers its tool calls from the recording, scores it and compares it with the recordings", async () => {
    const first = await recordedRun("2+2", "Four.");
    const second = await recordedRun("3*3", "Nine.");
    const name = await dataset([first, second]);
    // The variant answers case 1 as recorded, case 2 otherwise: one regression.
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", {
      dataset: name,
      variant: { system: "Answer in words.", script: [{ toolCalls: [{ id: "x1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }] },
      scorers: SCORERS,
      baseline: "recordings",
      budget: { usd: 10 },
    });
    expect(experiment).toMatchObject({ status: "running", mode: "replay", progress: { total: 2, pending: 2 } });
    const ended = await driveExperiment(experiment.id);
    expect(ended).toMatchObject({ status: "finished", progress: { total: 2, done: 2 } });
    const [one, two] = ended.cases;
    expect(one!.scores.map((score) => score.score)).toEqual([1, 1]);
    expect(one!.divergence).toMatchObject({ fromRecording: 1, unrecorded: [], neverMade: [], argumentMismatches: [] });
    // Case 2's recording asked 3*3: the case's 2+2 has no recording and is refused in mode replay.
    expect(two!.divergence).toMatchObject({ fromRecording: 0, unrecorded: [{ name: "calculator", answered: "refused" }], neverMade: [{ name: "calculator" }] });
    expect(two!.divergence!.argumentMismatches[0]).toMatchObject({ tool: "calculator", path: "expression", recorded: "3*3", new: "2+2" });
    expect(two!.scores[0]).toMatchObject({ scorer: "exact", score: 0 });
    const caseRun = (await (await api(`/v1/runs/${one!.runId}`, TEST_API_TOKEN)).json()) as RunView;
    expect(caseRun.experiment).toEqual({ id: experiment.id, case: 1, mode: "replay" });

    const response = await api(`/v1/experiments/${experiment.id}/comparison`, TEST_API_TOKEN);
    const { comparison } = (await response.json()) as { comparison: Comparison };
    expect(comparison.baseline).toBe("recordings");
    expect(comparison.cases[0]).toMatchObject({ n: 2, regression: true });
    expect(comparison.totals).toMatchObject({ cases: 2, regressions: 1 });
    const csv = await (await api(`/v1/experiments/${experiment.id}/export?format=csv`, TEST_API_TOKEN)).text();
    expect(csv.split("\n")[0]).toContain("exact.baseline");
    expect(csv.trim().split("\n")).toHaveLength(3);
  });

  it("in mode replay-then-live runs a call the recording lacks by the tool itself", async () => {
    const name = await dataset([await recordedRun("3*3", "Nine.")]);
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", {
      dataset: name,
      mode: "replay-then-live",
      variant: { script: [{ toolCalls: [{ id: "x1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }] },
      scorers: SCORERS,
      budget: { usd: 10 },
    });
    const ended = await driveExperiment(experiment.id);
    expect(ended.cases[0]!.divergence).toMatchObject({ fromRecording: 0, unrecorded: [{ name: "calculator", answered: "live" }] });
    const messages = (await (await api(`/v1/runs/${ended.cases[0]!.runId}/messages`, TEST_API_TOKEN)).json()) as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(messages.messages.filter((message) => message.role === "tool"))).toContain("4");
  });

  it("with the default budgets (the experiment's and each run's BUDGET_USD_DEFAULT) runs every case", async () => {
    const name = await dataset([await recordedRun("1+1", "Two."), await recordedRun("1+2", "Three."), await recordedRun("2+2", "Four.")]);
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: { system: "Answer in words." }, scorers: SCORERS, baseline: "recordings" });
    expect(experiment.budgetUsd).toBe(1);
    const ended = await driveExperiment(experiment.id);
    expect(ended).toMatchObject({ status: "finished", progress: { total: 3, done: 3, skipped: 0 } });
    expect(ended.spentUsd).toBeLessThanOrEqual(1);
    // The first case's run got the whole budget; each later one what the spent left (never a skip for want of a whole dollar).
    const budgets = await Promise.all(ended.cases.map(async (one) => ((await (await api(`/v1/runs/${one.runId}`, TEST_API_TOKEN)).json()) as RunView).budgetUsd));
    expect(budgets[0]).toBe(1);
    expect(budgets[1]).toBeLessThan(1);
    expect(budgets[1]).toBeGreaterThan(0.99);
    const { comparison } = (await (await api(`/v1/experiments/${experiment.id}/comparison`, TEST_API_TOKEN)).json()) as { comparison: Comparison };
    expect(comparison.totals).toMatchObject({ cases: 3, regressions: 0, unscored: 0 });
  });

  it("never spends past a tight budget: a case's run gets what is left unheld, and a case the spent leaves too little is skipped and compared as a regression", async () => {
    const name = await dataset([await recordedRun("1+1", "Two."), await recordedRun("1+2", "Three."), await recordedRun("2+2", "Four.")]);
    // Each turn costs $0.1 and calls a tool, so a run goes on until its budget is spent.
    const turns = Array.from({ length: 9 }, (_, i) => ({ toolCalls: [{ id: `x${i}`, name: "calculator", input: { expression: `${i}+${i}` } }], costUsd: 0.1 }));
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", {
      dataset: name,
      variant: { budget: { usd: 0.6 }, script: [...turns, { text: "Done." }] },
      scorers: SCORERS,
      budget: { usd: 1 },
      concurrency: 2,
      baseline: "recordings",
    });
    const ended = await driveExperiment(experiment.id);
    // Case 1 holds its own 0.6, case 2 gets the 0.4 left beside it, case 3 finds nothing left.
    expect(ended.cases.map((one) => one.state)).toEqual(["done", "done", "skipped"]);
    expect(ended.cases.map((one) => one.facts?.spentUsd)).toEqual([0.6, 0.4, undefined]);
    expect(ended.spentUsd).toBe(1);
    expect(ended.progress).toMatchObject({ done: 2, skipped: 1 });
    expect(ended.cases[2]!.reason).toMatch(/Skipped: the experiment has \$0 of its budget left.*EXPERIMENT_CASE_MIN_USD/);
    const budget = ((await (await api(`/v1/runs/${ended.cases[1]!.runId}`, TEST_API_TOKEN)).json()) as RunView).budgetUsd;
    expect(budget).toBe(0.4);

    const { comparison } = (await (await api(`/v1/experiments/${experiment.id}/comparison`, TEST_API_TOKEN)).json()) as { comparison: Comparison };
    const skipped = comparison.cases.find((one) => one.n === 3)!;
    expect(skipped).toMatchObject({ state: "skipped", regression: true });
    expect(comparison.totals).toMatchObject({ cases: 3, unscored: 1 });
    expect(comparison.totals.regressions).toBeGreaterThanOrEqual(1);
    const csv = await (await api(`/v1/experiments/${experiment.id}/export?format=csv`, TEST_API_TOKEN)).text();
    expect(csv.trim().split("\r\n")[3]).toMatch(/^3,skipped,.*,true,/);
  });

  it("compared with a baseline experiment that scored every case, a case it skipped is a regression", async () => {
    const name = await dataset([await recordedRun("3+1", "Four."), await recordedRun("3+2", "Five.")]);
    const { experiment: baseline } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: {}, scorers: SCORERS });
    expect((await driveExperiment(baseline.id)).progress).toMatchObject({ done: 2 });
    // A budget below EXPERIMENT_CASE_MIN_USD leaves no case room to start.
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: {}, scorers: SCORERS, budget: { usd: 0.01 } });
    expect((await driveExperiment(experiment.id)).progress).toMatchObject({ skipped: 2, done: 0 });
    const { comparison } = (await (await api(`/v1/experiments/${experiment.id}/comparison?baseline=${baseline.id}`, TEST_API_TOKEN)).json()) as { comparison: Comparison };
    expect(comparison.cases.map((one) => [one.n, one.state, one.regression])).toEqual([
      [1, "skipped", true],
      [2, "skipped", true],
    ]);
    expect(comparison.cases[0]!.scores).toEqual([
      { scorer: "exact", baseline: 1, score: null, delta: null },
      { scorer: "tool-called:calculator", baseline: 1, score: null, delta: null },
    ]);
    expect(comparison.totals).toMatchObject({ cases: 2, regressions: 2, unscored: 2 });
  });

  it("is cancelled: pending cases never start and the experiment ends cancelled", async () => {
    const name = await dataset([await recordedRun("5-1", "Four.")]);
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: {}, scorers: SCORERS });
    const { experiment: cancelled } = await post<{ experiment: ExperimentView }>(`/v1/experiments/${experiment.id}/cancel`, {}, 200);
    expect(cancelled).toMatchObject({ status: "cancelled", progress: { cancelled: 1 } });
    expect((await driveExperiment(experiment.id)).cases[0]!.runId).toBeUndefined();
  });
});

describe("the evals routes' errors", () => {
  it("refuse a dataset case whose run does not exist, a budget past its setting, and an unknown experiment", async () => {
    const missing = await api("/v1/datasets", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ name: fresh("bad"), cases: [{ runId: "run_nope" }] }) });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { issues: { path: string }[] } }).error.issues[0]!.path).toBe("cases.0.runId");
    const name = await dataset([await recordedRun("7+1", "Eight.")]);
    const big = await api("/v1/experiments", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ dataset: name, variant: {}, scorers: SCORERS, budget: { usd: 1_000 } }) });
    expect(big.status).toBe(400);
    expect(await big.text()).toContain("EXPERIMENT_BUDGET_USD_LIMIT");
    expect((await api("/v1/experiments/exp_aaaaaaaaaaaaaaaaaaaaaaaaaa", TEST_API_TOKEN)).status).toBe(404);
  });
});
