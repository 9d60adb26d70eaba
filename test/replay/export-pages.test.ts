// GET /v1/runs/:id/export of a run longer than one page of the journal and of the events (the
// export reads them a page at a time and streams the JSON as it goes): every journal entry once,
// in key order, with its cost; every event once, in seq order; each model step's request as what
// it adds to the one before (a few messages, never the history); and the recording replays.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readJournalEntries } from "../helpers/stored-journal";
import { replayRecording } from "../../src/replay/replay";
import { RECORDING_FORMAT, type Recording } from "../../src/replay/recording";
import { stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";

const STEPS = 80;

/** Each step but the last calls the calculator twice: 80 model steps and 158 tool calls, past a page of 200 entries. */
function script() {
  const calls = Array.from({ length: STEPS - 1 }, (_v, i) => ({
    text: `Step ${i + 1}.`,
    toolCalls: [
      { id: `a${i}`, name: "calculator", input: { expression: `${i} + 1` } },
      { id: `b${i}`, name: "calculator", input: { expression: `${i} * 2` } },
    ],
  }));
  return [...calls, { text: "done" }];
}

describe("export of a run longer than a page", () => {
  it("holds every journal entry and event once, in order, each request as a delta, and replays", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "count" }], tools: ["calculator"], maxSteps: STEPS, minAnswerChars: 0, script: script() });
    await driveRun(run.id, 500);
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", steps: STEPS });

    const response = await api(`/v1/runs/${run.id}/export`, token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const recording = (await response.json()) as Recording;
    expect(recording.format).toBe(RECORDING_FORMAT);

    const stored = await runInDurableObject(stubFor(run.id), (_instance, state) => readJournalEntries(state.storage.sql));
    expect(stored.length).toBeGreaterThan(200);
    expect(recording.journal).toEqual(stored.map((entry) => ({ key: entry.key, value: JSON.parse(entry.value) as unknown, costUsd: entry.costUsd })));
    expect(view.lastSeq).toBeGreaterThan(200);
    expect(recording.events.map((event) => event.seq)).toEqual(Array.from({ length: view.lastSeq }, (_v, i) => i + 1));

    const models = recording.segments[0]!.steps.filter((step) => step.request !== undefined);
    expect(models).toHaveLength(STEPS);
    // The history grows by a turn and its two results a step. A delta holds those, and the messages
    // from the one that lost its cache mark (the previous request's older mark: one turn back), and
    // the last request's note: at most 2 × 3 + 2, however long the history.
    for (const step of models.slice(1)) expect(step.request!.messages.length).toBeLessThanOrEqual(8);
    expect(models.at(-1)!.request!.keep).toBeGreaterThanOrEqual(3 * (STEPS - 3));

    const entries = recording.segments[0]!.steps.length;
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: STEPS, entries });
  });
});
