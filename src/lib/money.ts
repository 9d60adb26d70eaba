// Money in whole micro-dollars. Every cost and spend the service reports (costUsd, spentUsd,
// budgetUsd) is a number of dollars with at most 6 decimals, and sums are made in whole
// micro-dollars, so 0.012 + 0.009 is 0.021 and never 0.020999999999999998.

const MICROS = 1_000_000;

/** `value` dollars rounded to whole micro-dollars (at most 6 decimals); 0 for a value that is not a finite number. */
export function usd(value: number): number {
  return Number.isFinite(value) ? Math.round(value * MICROS) / MICROS : 0;
}

/** The exact sum of dollar amounts, each taken in whole micro-dollars. */
export function addUsd(...values: number[]): number {
  let micros = 0;
  for (const value of values) micros += Number.isFinite(value) ? Math.round(value * MICROS) : 0;
  return micros / MICROS;
}
