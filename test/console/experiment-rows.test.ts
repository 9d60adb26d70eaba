// The console's experiment page, its pure parts: the case table's rows (console/case-rows.ts) in the
// comparison's order with each score's baseline and delta, the divergence in words, the progress
// and variant in words; and the experiment kept up to date from its events
// (console/experiment-state.ts), an event it already holds changing nothing.
import { describe, expect, it } from "vitest";
import type { Comparison, ExperimentCase, ExperimentView } from "../../src/api/resources/eval-types";
import { caseRows, deltaText, divergencePhrases, progressText, scoreText, usdSize, variantText } from "../../console/experiments/case-rows";
import type { StoredExperimentEvent } from "../../console/experiments/experiment-api";
import { applyExperimentEvent } from "../../console/experiments/experiment-state";

const progress = (fields: Partial<ExperimentView["progress"]>) => ({ total: 3, pending: 0, running: 0, scoring: 0, done: 0, failed: 0, skipped: 0, cancelled: 0, ...fields });

function done(n: number, exact: number, spentUsd: number): ExperimentCase {
  return {
    n,
    state: "done",
    sourceRunId: `run_rec${n}`,
    runId: `run_case${n}`,
    facts: { runId: `run_case${n}`, status: "finished", finalText: "Four.", spentUsd, steps: 2, calls: [] },
    scores: [{ scorer: "exact", score: exact, reason: exact === 1 ? "The final text is the expected text." : 'The final text "Four." is not "Nine.".' }],
    divergence: { fromRecording: 1, unrecorded: [], neverMade: [], argumentMismatches: [], firstRequestDifference: { step: 1, path: "system" } },
    judgeUsd: 0,
  };
}

function view(cases: ExperimentCase[], fields: Partial<ExperimentView> = {}): ExperimentView {
  return {
    id: "exp_1",
    dataset: { name: "arithmetic", version: 1 },
    variant: { system: "Words only." },
    mode: "replay",
    budgetUsd: 1,
    concurrency: 4,
    scorers: [{ type: "exact" }],
    status: "running",
    progress: progress({ done: cases.filter((one) => one.state === "done").length, pending: cases.filter((one) => one.state === "pending").length }),
    spentUsd: 0,
    reservedUsd: 0,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    lastSeq: 1,
    cases,
    ...fields,
  };
}

const comparison: Comparison = {
  experimentId: "exp_1",
  baseline: "recordings",
  cases: [
    { n: 3, state: "done", regression: true, scores: [{ scorer: "exact", baseline: 1, score: 0, delta: -1 }], costUsd: { baseline: 0.001, new: 0.0012, delta: 0.0002 }, steps: { baseline: 2, new: 2, delta: 0 } },
    { n: 1, state: "done", regression: false, scores: [{ scorer: "exact", baseline: 1, score: 1, delta: 0 }], costUsd: { baseline: 0.001, new: 0.001, delta: 0 }, steps: { baseline: 3, new: 2, delta: -1 } },
  ],
  totals: { cases: 3, regressions: 1, unscored: 0, improvements: 0, scores: [], costUsd: { baseline: 0, new: 0, delta: 0 }, steps: { baseline: 0, new: 0, delta: 0 } },
};

describe("the case table's rows", () => {
  it("come in the comparison's order, regressions first, with each score's baseline and delta; a case it lacks comes last", () => {
    const pending: ExperimentCase = { n: 2, state: "pending", scores: [], judgeUsd: 0, sourceRunId: "run_rec2" };
    const rows = caseRows(view([done(1, 1, 0.001), pending, done(3, 0, 0.0012)]), comparison);
    expect(rows.map((row) => [row.n, row.regression])).toEqual([[3, true], [1, false], [2, false]]);
    expect(rows[0]).toMatchObject({ state: "done", costUsd: 0.0012, costDelta: 0.0002, steps: 2, stepsDelta: 0, runId: "run_case3", recordingId: "run_rec3" });
    expect(rows[0]!.scores).toEqual([{ scorer: "exact", score: 0, reason: 'The final text "Four." is not "Nine.".', baseline: 1, delta: -1 }]);
    expect(rows[2]).toMatchObject({ n: 2, state: "pending", scores: [], divergence: [], recordingId: "run_rec2" });
    expect(rows[2]!.runId).toBeUndefined();
    expect(rows[2]!.costUsd).toBeUndefined();
  });

  it("come by case number with no comparison, and no deltas", () => {
    const rows = caseRows(view([done(3, 0, 0.001), done(1, 1, 0.001)]), undefined);
    expect(rows.map((row) => row.n)).toEqual([1, 3]);
    expect(rows.every((row) => !row.regression && row.costDelta === undefined)).toBe(true);
    expect(rows[1]!.scores[0]).toEqual({ scorer: "exact", score: 0, reason: 'The final text "Four." is not "Nine.".' });
  });

  it("carry a skipped case's reason", () => {
    const skipped: ExperimentCase = { n: 1, state: "skipped", scores: [], judgeUsd: 0, reason: "Its run's budget never fits in what the experiment has left." };
    expect(caseRows(view([skipped]), undefined)[0]).toMatchObject({ state: "skipped", reason: "Its run's budget never fits in what the experiment has left." });
  });
});

describe("the words of the page", () => {
  it("say a divergence in phrases: from the recording, with no recording (live, refused), never made, mismatches, the first differing request", () => {
    expect(
      divergencePhrases({
        fromRecording: 0,
        unrecorded: [
          { step: 1, name: "calculator", input: { expression: "2+2" }, answered: "refused" },
          { step: 2, name: "search", input: { q: "x" }, answered: "live" },
        ],
        neverMade: [{ step: 1, name: "calculator", input: { expression: "3*3" } }],
        argumentMismatches: [{ tool: "calculator", step: 1, path: "expression", recorded: "3*3", new: "2+2" }],
        firstRequestDifference: { step: 1, path: "system" },
      }),
    ).toEqual(["0 from the recording", "2 calls with no recording (1 live, 1 refused)", "1 recorded call never made", "1 argument mismatch", "request differs from step 1 (system)"]);
    expect(divergencePhrases({ fromRecording: 2, unrecorded: [], neverMade: [], argumentMismatches: [] })).toEqual(["2 from the recording"]);
  });

  it("print scores, deltas and costs", () => {
    expect([scoreText(2 / 3), scoreText(1), scoreText(null)]).toEqual(["0.67", "1", "–"]);
    expect([deltaText(-1 / 3), deltaText(0.5), deltaText(1e-12)]).toEqual(["−0.33", "+0.5", "±0"]);
    expect([deltaText(0.0001, usdSize), deltaText(-0.000009, usdSize), usdSize(2.5)]).toEqual(["+$0.0001", "−$0.000009", "$2.50"]);
  });

  it("say the progress and the variant", () => {
    expect(progressText(progress({ done: 1, failed: 1, running: 1 }))).toBe("2 of 3 ended (1 done, 1 failed), 1 running");
    expect(progressText(progress({ pending: 3 }))).toBe("0 of 3 ended, 3 pending");
    expect(variantText({ system: "x", model: "y" })).toBe("changed: system, model");
    expect(variantText({})).toBe("the recordings as they were");
    expect(variantText({ agent: { name: "triage", version: 3 } })).toBe("agent triage · v3");
    expect(variantText({ agent: "triage" } as never)).toBe("agent triage");
  });
});

describe("the experiment kept from its events", () => {
  const event = (seq: number, body: Record<string, unknown>) => ({ seq, at: `2026-01-01T00:00:0${seq}.000Z`, ...body }) as StoredExperimentEvent;

  it("takes a started case's run, an ended case whole, and the end's status and spend", () => {
    const start = view([{ n: 1, state: "pending", scores: [], judgeUsd: 0 }], { progress: progress({ total: 1, pending: 1 }) });
    const started = applyExperimentEvent(start, event(2, { type: "case-started", n: 1, runId: "run_case1", progress: progress({ total: 1, running: 1 }) }));
    expect(started.cases[0]).toMatchObject({ state: "running", runId: "run_case1" });
    expect(started.progress.running).toBe(1);
    const ended = applyExperimentEvent(started, event(3, { type: "case-ended", case: done(1, 1, 0.001), spentUsd: 0.001, progress: progress({ total: 1, done: 1 }) }));
    expect(ended.cases[0]).toEqual(done(1, 1, 0.001));
    expect(ended.spentUsd).toBe(0.001);
    const over = applyExperimentEvent(ended, event(4, { type: "experiment-ended", status: "finished", spentUsd: 0.001, progress: progress({ total: 1, done: 1 }) }));
    expect(over).toMatchObject({ status: "finished", lastSeq: 4, endedAt: "2026-01-01T00:00:04.000Z" });
  });

  it("changes nothing for an event it already holds", () => {
    const held = view([done(1, 1, 0.001)], { lastSeq: 5, status: "finished" });
    expect(applyExperimentEvent(held, event(5, { type: "case-started", n: 1, runId: "run_other", progress: progress({ running: 1 }) }))).toBe(held);
  });
});
