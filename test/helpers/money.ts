// Money in what a test reads: every amount under a key named like money, anywhere in an answer.

/** Every number under a key named like money (costUsd, spentUsd, budgetUsd, …) anywhere in `value`. */
export function amounts(value: unknown, found: number[] = []): number[] {
  if (Array.isArray(value)) value.forEach((item) => amounts(item, found));
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (/usd/i.test(key) && typeof item === "number") found.push(item);
      else amounts(item, found);
    }
  }
  return found;
}
