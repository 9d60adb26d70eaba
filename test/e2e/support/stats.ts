// Order statistics for printed figures.

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function summary(values: readonly number[], unit = "ms", digits = 0): string {
  const f = (value: number) => value.toFixed(digits);
  return `p50 ${f(percentile(values, 50))} ${unit}, p95 ${f(percentile(values, 95))} ${unit}, p99 ${f(percentile(values, 99))} ${unit}, max ${f(Math.max(...values))} ${unit} (n=${values.length})`;
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
