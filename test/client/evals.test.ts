// The typed client's evals against the Worker (SELF): datasets made from recorded runs, from a
// selection of a subject's tagged runs and from an inline input, read at a version and listed; an
// experiment made, followed over its events (SSE) while it runs, read, listed, compared and
// reported as JSON and CSV; another cancelled; refusals as RatchetError with the API's code.
import { describe, expect, it } from "vitest";
import { createClient, RatchetError, type RatchetClient, type StoredExperimentEvent } from "../../src/client";
import { driveExperiment } from "../helpers/experiments";
import { freshSubject, settle } from "../helpers/inbox";
import { BASE, createLab, until } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";

const fresh = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

async function recorded(client: RatchetClient, expression: string, answer: string, extra: { subject?: string; tags?: string[] } = {}): Promise<string> {
  const { run } = await client.createRun({
    provider: "scripted",
    tools: ["calculator"],
    minAnswerChars: 0,
    ...extra,
    messages: [{ role: "user", content: `What is ${expression}?` }],
    script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression } }] }, { text: answer }],
  });
  await settle(run.id);
  return run.id;
}

describe("the typed client's datasets and experiments", () => {
  it("makes a dataset of runs, a selection and an inline input; runs, follows, compares and reports an experiment", async () => {
    const lab = createLab();
    const client = createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });
    const first = await recorded(client, "2+2", "Four.");
    const subject = freshSubject("evals-client");
    const tagged = await recorded(client, "3*3", "Nine.", { subject, tags: ["golden"] });
    await recorded(client, "1+1", "Two.", { subject });

    const name = fresh("client-math");
    const made = await client.createDataset({ name, description: "Sums.", cases: [{ runId: first, recordedReference: true }] });
    expect(made).toMatchObject({ name, version: 1, cases: [{ n: 1, runId: first, reference: { finalText: "Four." } }] });
    const selected = await client.addCases(name, { select: { subject, tag: "golden", recordedReference: true } });
    expect(selected.version).toBe(2);
    expect(selected.cases.map((one) => one.runId)).toEqual([first, tagged]);
    const inline = await client.addCases(name, { cases: [{ messages: [{ role: "user", content: "Say hi." }], reference: { finalText: "Hi." } }] });
    expect(inline).toMatchObject({ version: 3, cases: [{ n: 1 }, { n: 2 }, { n: 3, messages: [{ role: "user", content: "Say hi." }], addedIn: 3 }] });
    expect((await client.getDataset(name, { version: 1 })).cases).toHaveLength(1);
    expect((await client.getDataset(name)).version).toBe(3);
    const listed = await client.listDatasets({ limit: 100 });
    expect(listed.datasets.find((one) => one.name === name)).toMatchObject({ version: 3, cases: 3 });

    // Version 2: the two recorded cases. The variant answers 2+2 with "Four.", so case 2 (3*3) regresses.
    const experiment = await client.createExperiment({
      dataset: name,
      datasetVersion: 2,
      variant: { system: "Answer in words.", script: [{ toolCalls: [{ id: "x1", name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }], budget: { usd: 0.05 } },
      scorers: [{ type: "exact" }, { type: "tool-called", tool: "calculator" }],
      baseline: "recordings",
    });
    expect(experiment).toMatchObject({ status: "running", dataset: { name, version: 2 }, progress: { total: 2, pending: 2 } });

    // Followed while it runs: the iteration ends with experiment-ended.
    const seen: StoredExperimentEvent[] = [];
    const following = (async () => {
      for await (const event of client.experimentEvents(experiment.id)) seen.push(event);
    })();
    await until(() => lab.connections.length >= 1, "the events' connection");
    const ended = await driveExperiment(experiment.id);
    await following;
    expect(ended.status).toBe("finished");
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_event, index) => index + 1));
    expect(seen[0]!.type).toBe("experiment-started");
    expect(seen.at(-1)).toMatchObject({ type: "experiment-ended", status: "finished", progress: { done: 2 } });
    expect(seen.filter((event) => event.type === "case-ended")).toHaveLength(2);
    // Asked again after it ended: the history, then the end.
    const again: string[] = [];
    for await (const event of client.experimentEvents(experiment.id, { after: seen.length - 1 })) again.push(event.type);
    expect(again).toEqual(["experiment-ended"]);

    const read = await client.getExperiment(experiment.id);
    expect(read.cases.map((one) => one.state)).toEqual(["done", "done"]);
    expect((await client.listExperiments({ limit: 100 })).experiments.some((one) => one.id === experiment.id)).toBe(true);
    const comparison = await client.getComparison(experiment.id);
    expect(comparison).toMatchObject({ baseline: "recordings", totals: { cases: 2, regressions: 1, unscored: 0 } });
    expect(comparison.cases[0]).toMatchObject({ n: 2, state: "done", regression: true });
    const report = await client.getReport(experiment.id);
    expect(report.experiment.id).toBe(experiment.id);
    expect(report.comparison?.totals.regressions).toBe(1);
    const csv = await client.getReportCsv(experiment.id);
    expect(csv.split("\r\n")[0]).toMatch(/^case,state,.*exact\.baseline/);
    expect(csv.trim().split("\r\n")).toHaveLength(3);
  });

  it("cancels an experiment, and refusals are RatchetErrors naming the field", async () => {
    const lab = createLab();
    const client = createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });
    const name = fresh("client-cancel");
    await client.createDataset({ name, cases: [{ messages: [{ role: "user", content: "Hi." }] }] });
    const experiment = await client.createExperiment({ dataset: name, variant: {}, scorers: [{ type: "steps", max: 3 }] });
    const cancelled = await client.cancelExperiment(experiment.id);
    expect(cancelled).toMatchObject({ status: "cancelled", progress: { cancelled: 1 } });

    const missing = (await client.getExperiment("exp_aaaaaaaaaaaaaaaaaaaaaaaaaa").catch((error: unknown) => error)) as RatchetError;
    expect(missing).toBeInstanceOf(RatchetError);
    expect(missing.code).toBe("not-found");
    const refused = (await client.createExperiment({ dataset: name, variant: {}, scorers: [] }).catch((error: unknown) => error)) as RatchetError;
    expect(refused.code).toBe("invalid-request");
    expect(refused.issues?.map((issue) => issue.path)).toEqual(["scorers"]);
    const unknown = (await client.addCases(fresh("nope"), { cases: [{ messages: [{ role: "user", content: "Hi." }] }] }).catch((error: unknown) => error)) as RatchetError;
    expect(unknown.code).toBe("not-found");
  });
});
