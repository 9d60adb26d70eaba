// Helpers for experiment tests: recorded runs made over HTTP, datasets and experiments made through
// the routes, and an experiment driven by hand — its alarm fired, each case run settled (its alarms
// fired and its outbox delivered to the experiment), until it ends.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { ExperimentView } from "../../src/api/resources/eval-types";
import type { ExperimentObject } from "../../src/durable/evals/experiment/experiment-object";
import { api, startRun } from "./service-client";
import { settle } from "./inbox";
import { TEST_API_TOKEN } from "../test-env";

export function experimentObject(id: string): DurableObjectStub<ExperimentObject> {
  return env.EXPERIMENTS.get(env.EXPERIMENTS.idFromName(id)) as unknown as DurableObjectStub<ExperimentObject>;
}

/** A finished scripted run that asked the calculator `expression` and answered `answer`. */
export async function recordedRun(expression: string, answer: string, tags: string[] = []): Promise<string> {
  const { run } = await startRun({
    tools: ["calculator"],
    minAnswerChars: 0,
    ...(tags.length === 0 ? {} : { tags }),
    messages: [{ role: "user", content: `What is ${expression}?` }],
    script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression } }] }, { text: answer }],
  });
  await settle(run.id);
  return run.id;
}

export async function post<T>(path: string, body: unknown, status = 201): Promise<T> {
  const response = await api(path, TEST_API_TOKEN, { method: "POST", body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

export async function experimentOf(id: string): Promise<ExperimentView> {
  const response = await api(`/v1/experiments/${id}`, TEST_API_TOKEN);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { experiment: ExperimentView }).experiment;
}

/** Fires the experiment's alarm and settles each case run it started, until it ends (or `rounds` run out). */
export async function driveExperiment(id: string, rounds = 20): Promise<ExperimentView> {
  for (let round = 0; round < rounds; round++) {
    await runDurableObjectAlarm(experimentObject(id));
    const view = await experimentOf(id);
    if (view.status !== "running") return view;
    for (const one of view.cases) if (one.state === "running" && one.runId !== undefined) await settle(one.runId);
  }
  return experimentOf(id);
}

/** Case runs made for case `n` of experiment `id`: the run object of its derived id, whether it holds a run. */
export async function caseRunIds(id: string): Promise<string[]> {
  return runInDurableObject(experimentObject(id), (_instance, state) =>
    state.storage.sql.exec<{ run_id: string | null }>("SELECT run_id FROM experiment_case ORDER BY n").toArray().flatMap((row) => (row.run_id === null ? [] : [row.run_id])),
  );
}
