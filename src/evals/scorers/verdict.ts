// What a scorer answers: a score from 0 to 1 (null where it could not judge), and why.
export type Verdict = { score: number | null; reason: string };
