// `npm run eval`'s case table, pure: one row per case in the comparison's order (regressions first),
// with its state, each scorer's score and delta against the baseline, cost, steps and a divergence
// summary; then the totals. Plain aligned text, for a terminal and a CI log.
import type { CaseComparison, Comparison, Divergence, ExperimentView } from "../../src/client/types.ts";
import { scorerMeans } from "./verdict.ts";

const num = (value: number) => String(Math.round(value * 1000) / 1000);
const signed = (value: number) => (Number(num(value)) > 0 ? `+${num(value)}` : num(value));

function scoreCell(compared: CaseComparison | undefined, scorer: string, own: number | null | undefined): string {
  const delta = compared?.scores.find((score) => score.scorer === scorer);
  const shown = own === undefined || own === null ? "-" : num(own);
  if (delta === undefined || delta.baseline === null) return shown;
  return delta.delta === null ? `${shown} (was ${num(delta.baseline)})` : `${shown} (${signed(delta.delta)})`;
}

/** "<from recording>/<unrecorded>/<never made>/<argument mismatches>", and the first request difference. */
export function divergenceCell(divergence: Divergence | undefined): string {
  if (divergence === undefined) return "-";
  const counts = `${divergence.fromRecording}/${divergence.unrecorded.length}/${divergence.neverMade.length}/${divergence.argumentMismatches.length}`;
  const first = divergence.firstRequestDifference;
  return first === undefined ? counts : `${counts} step ${first.step}: ${first.path}`;
}

function aligned(rows: string[][]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n");
}

export function caseTable(view: ExperimentView, comparison: Comparison): string {
  const means = scorerMeans(view);
  const scorers = [...means.keys()];
  const byCase = new Map(view.cases.map((one) => [one.n, one]));
  const compared = new Map(comparison.cases.map((one) => [one.n, one]));
  const order = [...compared.keys(), ...view.cases.map((one) => one.n).filter((n) => !compared.has(n))];
  const header = ["case", "state", ...scorers, "cost $", "Δcost", "steps", "Δsteps", "divergence", ""];
  const rows = order.map((n) => {
    const one = byCase.get(n)!;
    const against = compared.get(n);
    const cost = against?.costUsd.delta;
    const steps = against?.steps.delta;
    return [
      String(n),
      one.state,
      ...scorers.map((scorer) => scoreCell(against, scorer, one.scores.find((score) => score.scorer === scorer)?.score)),
      one.facts === undefined ? "-" : num(one.facts.spentUsd + one.judgeUsd),
      cost === undefined || cost === null ? "-" : signed(cost),
      one.facts === undefined ? "-" : String(one.facts.steps),
      steps === undefined || steps === null ? "-" : signed(steps),
      divergenceCell(one.divergence),
      against?.regression === true ? "REGRESSED" : "",
    ];
  });
  const totals = comparison.totals;
  const meanLine = [...means].map(([scorer, mean]) => {
    const against = totals.scores.find((score) => score.scorer === scorer);
    return `${scorer} ${mean === null ? "-" : num(mean)}${against?.baseline === null || against?.baseline === undefined ? "" : ` (baseline ${num(against.baseline)} on the cases both scored)`}`;
  });
  return [
    aligned([header, ...rows]),
    "",
    "divergence: calls from the recording/unrecorded/recorded but never made/argument mismatches, and the first step whose request differs",
    `${totals.cases} cases against ${comparison.baseline}: ${totals.regressions} regressed, ${totals.improvements} improved, ${totals.unscored} not scored; spent $${num(view.spentUsd)} of $${num(view.budgetUsd)}`,
    `means: ${meanLine.join("; ")}`,
  ].join("\n");
}
