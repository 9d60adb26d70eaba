// Tokens for timing a comparison: candidates that share 0, half, and all but one leading
// characters with the real value, measured in a new random order every round. Shared by the
// workerd and the HTTP token-timing benchmarks.

export type Candidate = { label: string; value: string };

/**
 * Candidates differing from `real` first at its start, its middle and its last character
 * (characters before `start`, such as a "rt_" prefix, are shared by all). `alphabet` holds
 * every character `real` may contain; the changed one is its neighbour there.
 */
export function prefixCandidates(real: string, alphabet: string, start = 0): Candidate[] {
  const other = (char: string) => alphabet[(alphabet.indexOf(char) + 1) % alphabet.length]!;
  const differAt = (i: number) => real.slice(0, i) + other(real[i]!) + real.slice(i + 1);
  return [
    { label: "0 shared", value: differAt(start) },
    { label: "half shared", value: differAt(start + Math.floor((real.length - start) / 2)) },
    { label: "all but one shared", value: differAt(real.length - 1) },
  ];
}

/** A shuffled copy (Fisher–Yates). */
export function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
