// The crash points of an experiment (src/durable/evals/experiment/experiment-step.ts): killed after a case was
// marked running and before its run was made, after its run was made and before that was noted, and
// after a case was scored — each time every object is aborted, the experiment goes on from its
// storage, and no case is run or scored twice.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DatasetView, ExperimentView } from "../../src/api/resources/eval-types";
import type { CrashPoint } from "../../src/durable/evals/experiment/experiment-step";
import { eventsAfter } from "../../src/durable/events/log/event-log";
import { caseRunIds, driveExperiment, experimentObject, post, recordedRun } from "../helpers/experiments";
import { journalKeys, stubFor } from "../helpers/runs";

let counter = 0;

async function experiment(budgetUsd = 10): Promise<string> {
  const runIds = [await recordedRun("2+2", "Four."), await recordedRun("4+4", "Eight.")];
  const name = `crash-${Date.now().toString(36)}-${++counter}`;
  await post<{ dataset: DatasetView }>("/v1/datasets", { name, cases: runIds.map((runId) => ({ runId, recordedReference: true })) });
  const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: { system: "Be brief." }, mode: "replay-then-live", budget: { usd: budgetUsd }, scorers: [{ type: "exact" }] });
  return experiment.id;
}

/** Fires the experiment's alarm with a crash at `point`, then aborts every object. */
async function crashAt(id: string, point: CrashPoint): Promise<void> {
  await runInDurableObject(experimentObject(id), (instance) => {
    instance.crash = (reached) => {
      if (reached === point) throw new Error(`crash at ${point}`);
    };
  });
  await runDurableObjectAlarm(experimentObject(id)).catch(() => undefined);
  await abortAllDurableObjects();
}

async function caseEndedEvents(id: string): Promise<number[]> {
  return runInDurableObject(experimentObject(id), (_instance, state) =>
    eventsAfter(state.storage.sql, 0)
      .map((event) => JSON.parse(event.text) as { type: string; case?: { n: number } })
      .filter((event) => event.type === "case-ended")
      .map((event) => event.case!.n),
  );
}

describe.each<CrashPoint>(["case-marked", "case-made"])("an experiment killed at %s", (point) => {
  it("makes the case's run once after the restart, runs it to its end and finishes with every case scored once", async () => {
    const id = await experiment();
    await crashAt(id, point);
    const ended = await driveExperiment(id);
    expect(ended, JSON.stringify(ended.cases.map((one) => one.reason))).toMatchObject({ status: "finished", progress: { done: 2 } });
    const runs = await caseRunIds(id);
    expect(new Set(runs).size).toBe(2);
    // Each case run asked its model once per step: nothing of it was done twice.
    for (const runId of runs) expect((await journalKeys(stubFor(runId))).filter((key) => key.endsWith("model/1"))).toHaveLength(1);
    expect((await caseEndedEvents(id)).sort()).toEqual([1, 2]);
    expect(ended.cases.map((one) => one.divergence?.fromRecording)).toEqual([1, 1]);
  });

  it("makes the case's run again with the budget it was marked with (the experiment's share), not its own whole budget", async () => {
    // $0.7: case 1's run gets $0.7 of its own $1; case 2 waits for it and gets what it left.
    const id = await experiment(0.7);
    await crashAt(id, point);
    const ended = await driveExperiment(id);
    expect(ended).toMatchObject({ status: "finished", progress: { done: 2 } });
    const budgets = await Promise.all((await caseRunIds(id)).map(async (runId) => (await stubFor(runId).view()) as { ok: boolean; value: { budgetUsd: number } }));
    const [first, second] = budgets.map((view) => view.value.budgetUsd);
    expect(first).toBe(0.7);
    expect(second).toBe(Math.round((0.7 - ended.cases[0]!.facts!.spentUsd) * 1e6) / 1e6);
    expect(ended.spentUsd).toBeLessThanOrEqual(0.7);
  });
});

describe("an experiment killed right after a case was scored", () => {
  it("does not score that case again", async () => {
    const id = await experiment();
    await runDurableObjectAlarm(experimentObject(id));
    for (const runId of await caseRunIds(id)) {
      const { settle } = await import("../helpers/inbox");
      await settle(runId);
    }
    await crashAt(id, "case-scored");
    const ended = await driveExperiment(id);
    expect(ended, JSON.stringify(ended.cases.map((one) => one.reason))).toMatchObject({ status: "finished", progress: { done: 2 } });
    expect((await caseEndedEvents(id)).sort()).toEqual([1, 2]);
  });
});
