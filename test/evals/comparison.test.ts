// An experiment against its baseline, pure (src/evals/comparison.ts): per case the score, cost
// and steps deltas, regressions first (largest fall first); in total the means, sums and counts. A
// case the experiment did not score (skipped, failed, cancelled) while the baseline scored it is a
// regression, shown with the baseline's scores and counted as unscored.
import { describe, expect, it } from "vitest";
import type { CaseState } from "../../src/api/resources/eval-types";
import { compare, type ComparedSide } from "../../src/evals/comparison";

const side = (n: number, scores: Record<string, number | null>, costUsd?: number, steps?: number, state: CaseState = "done"): ComparedSide => ({
  n,
  state,
  scores: Object.entries(scores).map(([scorer, score]) => ({ scorer, score, reason: "" })),
  ...(costUsd === undefined ? {} : { costUsd }),
  ...(steps === undefined ? {} : { steps }),
  runId: `run_${n}`,
});

describe("compare", () => {
  const baseline = [side(1, { exact: 1, rubric: 0.8 }, 0.1, 3), side(2, { exact: 1, rubric: 0.9 }, 0.2, 4), side(3, { exact: 0, rubric: 0.5 }, 0.3, 5), side(4, { exact: 1, rubric: 1 }, 0.1, 2)];
  const current = [side(1, { exact: 1, rubric: 0.8 }, 0.1, 3), side(2, { exact: 0, rubric: 0.9 }, 0.25, 6), side(3, { exact: 1, rubric: 0.7 }, 0.2, 4), side(4, { exact: 1, rubric: 0.6 }, 0.1, 2), side(5, { exact: 1, rubric: null })];
  const comparison = compare("exp_new", "exp_old", current, baseline);

  it("lists regressions first, the largest fall first, then the rest by case", () => {
    expect(comparison.cases.map((one) => [one.n, one.regression])).toEqual([
      [2, true],
      [4, true],
      [1, false],
      [3, false],
      [5, false],
    ]);
  });

  it("gives each case's score, cost and steps deltas, null where a side has none", () => {
    const two = comparison.cases.find((one) => one.n === 2)!;
    expect(two.scores).toEqual([
      { scorer: "exact", baseline: 1, score: 0, delta: -1 },
      { scorer: "rubric", baseline: 0.9, score: 0.9, delta: 0 },
    ]);
    expect(two.costUsd).toEqual({ baseline: 0.2, new: 0.25, delta: 0.05 });
    expect(two.steps).toEqual({ baseline: 4, new: 6, delta: 2 });
    expect(two).toMatchObject({ runId: "run_2", baselineRunId: "run_2" });
    const five = comparison.cases.find((one) => one.n === 5)!;
    expect(five.scores[0]).toEqual({ scorer: "exact", baseline: null, score: 1, delta: null });
    expect(five.costUsd).toEqual({ baseline: null, new: null, delta: null });
  });

  it("totals each scorer's mean over the cases both sides scored, the sums of cost and steps, and the counts", () => {
    expect(comparison.totals.cases).toBe(5);
    expect(comparison.totals.regressions).toBe(2);
    expect(comparison.totals.improvements).toBe(1);
    const [exact, rubric] = comparison.totals.scores;
    expect(exact).toEqual({ scorer: "exact", baseline: 0.75, score: 0.75, delta: 0 });
    expect(rubric!.baseline).toBeCloseTo(0.8);
    expect(rubric!.score).toBeCloseTo(0.75);
    expect(rubric!.delta).toBeCloseTo(-0.05);
    expect(comparison.totals.costUsd).toEqual({ baseline: 0.7, new: 0.65, delta: -0.05 });
    expect(comparison.totals.steps).toEqual({ baseline: 14, new: 15, delta: 1 });
  });

  it("counts a case the experiment skipped while the baseline scored it as a regression, never as no change", () => {
    const before = [side(1, { exact: 1 }, 0.1, 2), side(2, { exact: 1 }, 0.1, 2), side(3, { exact: 1 }, 0.1, 2), side(4, { exact: 1 }, 0.1, 2, "skipped")];
    const after = [side(1, { exact: 1 }, 0.1, 2), side(2, {}, undefined, undefined, "skipped"), side(3, {}, undefined, undefined, "failed"), side(4, {}, undefined, undefined, "skipped")];
    const mostlySkipped = compare("exp_new", "exp_old", after, before);
    expect(mostlySkipped.cases.map((one) => [one.n, one.state, one.regression])).toEqual([
      [2, "skipped", true],
      [3, "failed", true],
      [1, "done", false],
      // Skipped on both sides: nothing was lost, but it is still counted as unscored.
      [4, "skipped", false],
    ]);
    expect(mostlySkipped.cases[0]!.scores).toEqual([{ scorer: "exact", baseline: 1, score: null, delta: null }]);
    expect(mostlySkipped.totals).toMatchObject({ cases: 4, regressions: 2, improvements: 0, unscored: 3 });
    // The means cover only the case both sides scored.
    expect(mostlySkipped.totals.scores).toEqual([{ scorer: "exact", baseline: 1, score: 1, delta: 0 }]);
  });
});
