// Whether `npm run eval` passes, pure: each scorer's mean over the cases the experiment scored
// against its threshold, every regressed case (unless regressions are allowed), every case the
// experiment did not score (failed, skipped, cancelled) and a cancelled experiment. Each failure is
// one line; none, and the run passes (exit 0).
import type { Comparison, ExperimentView } from "../../src/client/types.ts";
import { scorerName } from "../../src/evals/scorers/scorer-name.ts";

/** Each scorer's mean over the cases the experiment scored (null: no case has a score), in the order of its scorers. */
export function scorerMeans(view: ExperimentView): Map<string, number | null> {
  const sums = new Map<string, { sum: number; count: number }>(view.scorers.map((scorer) => [scorerName(scorer), { sum: 0, count: 0 }]));
  for (const one of view.cases) {
    for (const score of one.scores) {
      const sum = sums.get(score.scorer) ?? { sum: 0, count: 0 };
      if (score.score !== null) Object.assign(sum, { sum: sum.sum + score.score, count: sum.count + 1 });
      sums.set(score.scorer, sum);
    }
  }
  return new Map([...sums].map(([scorer, { sum, count }]) => [scorer, count === 0 ? null : sum / count]));
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export function failures(view: ExperimentView, comparison: Comparison, thresholds: ReadonlyMap<string, number>, allowRegressions: boolean): string[] {
  const found: string[] = [];
  if (view.status === "cancelled") found.push("The experiment was cancelled.");
  const means = scorerMeans(view);
  const names = new Set([...means.keys(), ...[...thresholds.keys()].filter((name) => name !== "*")]);
  for (const scorer of names) {
    const least = thresholds.get(scorer) ?? thresholds.get("*");
    if (least === undefined) continue;
    const mean = means.get(scorer) ?? null;
    if (mean === null) found.push(`${scorer}: no case has a score (threshold ${least}).`);
    else if (mean < least) found.push(`${scorer}: mean ${round(mean)} is below the threshold ${least}.`);
  }
  const regressed = comparison.cases.filter((one) => one.regression && one.state === "done").map((one) => one.n);
  if (regressed.length > 0 && !allowRegressions) found.push(`${regressed.length} case${regressed.length === 1 ? "" : "s"} regressed against ${comparison.baseline}: ${regressed.join(", ")}.`);
  for (const one of view.cases.filter((each) => each.state === "failed" || each.state === "skipped" || each.state === "cancelled")) {
    found.push(`Case ${one.n} ${one.state}${one.reason === undefined ? "." : `: ${one.reason}`}`);
  }
  return found;
}
