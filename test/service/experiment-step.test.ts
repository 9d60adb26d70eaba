// How an experiment's step moves its cases (src/durable/evals/experiment/experiment-step.ts): a case run tells
// its experiment its end alone, and a case that waited for the budget starts in the very alarm that
// scores the case holding it (scoring and starting go side by side, then what waited goes).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DatasetView, ExperimentView } from "../../src/api/resources/eval-types";
import { eventsAfter } from "../../src/durable/events/log/event-log";
import { caseRunIds, experimentObject, experimentOf, post, recordedRun } from "../helpers/experiments";
import { settle } from "../helpers/inbox";
import { stubFor } from "../helpers/runs";

let counter = 0;

async function experiment(budgetUsd: number): Promise<string> {
  const runIds = [await recordedRun("2+2", "Four."), await recordedRun("4+4", "Eight.")];
  const name = `step-${Date.now().toString(36)}-${++counter}`;
  await post<{ dataset: DatasetView }>("/v1/datasets", { name, cases: runIds.map((runId) => ({ runId, recordedReference: true })) });
  const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: name, variant: { system: "Be brief." }, mode: "replay", budget: { usd: budgetUsd }, scorers: [{ type: "exact" }] });
  return experiment.id;
}

/** The experiment's events, as logged: their types, and the case each names. */
async function logged(id: string): Promise<string[]> {
  return runInDurableObject(experimentObject(id), (_instance, state) =>
    eventsAfter(state.storage.sql, 0).map((event) => {
      const parsed = JSON.parse(event.text) as { type: string; n?: number; case?: { n: number } };
      return `${parsed.type}${parsed.n ?? parsed.case?.n ?? ""}`;
    }),
  );
}

describe("an experiment's step", () => {
  it("gets no word of its case run's start: the run's outbox holds nothing for the experiment until the run ends", async () => {
    const id = await experiment(10);
    await runDurableObjectAlarm(experimentObject(id));
    const runs = await caseRunIds(id);
    expect(runs).toHaveLength(2);
    for (const runId of runs) {
      const rows = await runInDurableObject(stubFor(runId) as unknown as DurableObjectStub, (_instance, state) => state.storage.sql.exec<{ type: string }>("SELECT type FROM outbox WHERE channel = 'experiment'").toArray().map((row) => row.type));
      expect(rows).toEqual([]);
    }
    for (const runId of runs) await settle(runId);
    await runDurableObjectAlarm(experimentObject(id));
    expect(await experimentOf(id)).toMatchObject({ status: "finished", progress: { done: 2 } });
  });

  it("starts a case that waited for the budget in the alarm that scores the case holding it", async () => {
    // $0.7: case 1's run holds all of it, so case 2 waits until case 1 is scored.
    const id = await experiment(0.7);
    await runDurableObjectAlarm(experimentObject(id));
    expect(await logged(id)).toEqual(["experiment-started", "case-started1"]);
    const [first] = await caseRunIds(id);
    await settle(first!);
    await runDurableObjectAlarm(experimentObject(id));
    expect(await logged(id)).toEqual(["experiment-started", "case-started1", "case-ended1", "case-started2"]);
    await settle((await caseRunIds(id))[1]!);
    await runDurableObjectAlarm(experimentObject(id));
    const ended = await experimentOf(id);
    expect(ended).toMatchObject({ status: "finished", progress: { done: 2 } });
    expect(ended.spentUsd).toBeLessThanOrEqual(0.7);
  });
});
