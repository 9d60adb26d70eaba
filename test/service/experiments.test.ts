// Evals end to end inside workerd (docs/evals.md): recorded runs made a dataset, an experiment with a
// changed system prompt whose case runs answer their tool calls from the recordings, scored, with
// divergence and a comparison against the recordings; the budget never spent past; a case run
// refused in mode replay; cancel; and the routes' errors.
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

  it("never spends past its budget: a case that could not fit beside what was spent is skipped", async () => {
    const first = await recordedRun("1+1", "Two.");
    const second = await recordedRun("1+2", "Three.");
    const name = await dataset([first, second]);
    // Each case run may spend 0.6: one fits in 1, two never do.
    const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", {
      dataset: name,
      variant: { budget: { usd: 0.6 }, script: [{ text: "Done.", costUsd: 0.5 }] },
      scorers: SCORERS,
      budget: { usd: 1 },
      concurrency: 2,
    });
    const ended = await driveExperiment(experiment.id);
    expect(ended.cases.map((one) => one.state)).toEqual(["done", "skipped"]);
    expect(ended.spentUsd).toBeLessThanOrEqual(1);
    expect(ended.cases[1]!.reason).toMatch(/Skipped/);
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
