// The rows of an experiment's case table, pure: each case with its scores (and, against the
// baseline, each score's baseline and delta), what it cost and how many steps it took (with their
// deltas), its divergence from its recording in words, and its run beside its recording. With a
// comparison the rows come in its order (regressions first, the largest fall first); without one,
// by case number. The page (experiment-page.ts) only draws them.
import type { CaseState, Comparison, Divergence, ExperimentCase, ExperimentProgress, ExperimentView, Variant } from "../../src/api/resources/eval-types";

export type ScoreCell = { scorer: string; score: number | null; reason: string; baseline?: number | null; delta?: number | null };

export type CaseRow = {
  n: number;
  state: CaseState;
  /** Why the case failed, was skipped or cancelled. */
  reason?: string;
  regression: boolean;
  scores: ScoreCell[];
  costUsd?: number;
  costDelta?: number | null;
  steps?: number;
  stepsDelta?: number | null;
  /** The case's divergence from its recording, one phrase each ([] when it followed it). */
  divergence: string[];
  /** The details under those phrases: each call with no recording, never made, or with other arguments. */
  divergenceDetails: string[];
  runId?: string;
  /** The recorded run the case forks (absent for an inline input). */
  recordingId?: string;
};

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
const short = (value: unknown) => JSON.stringify(value) ?? "undefined";

/** A score of 0..1 as the table prints it: at most two decimals ("0.67"), "–" when there was nothing to judge. */
export function scoreText(score: number | null | undefined): string {
  return score === null || score === undefined ? "–" : String(Math.round(score * 100) / 100);
}

/** A change with its sign ("+0.5", "−1", "±0"); `format` prints its size. */
export function deltaText(delta: number, format: (size: number) => string = scoreText): string {
  if (Math.abs(delta) < 1e-9) return "±0";
  return `${delta > 0 ? "+" : "−"}${format(Math.abs(delta))}`;
}

/** A cost change's size in dollars, with the digits a small one needs: "$0.0010", "$0.000009". */
export function usdSize(size: number): string {
  return size !== 0 && size < 0.0001 ? `$${size.toFixed(6)}` : `$${size.toFixed(size < 1 ? 4 : 2)}`;
}

/** The divergence in short phrases: "1 from the recording", "1 with no recording (refused)", … */
export function divergencePhrases(divergence: Divergence): string[] {
  const phrases = [`${divergence.fromRecording} from the recording`];
  const live = divergence.unrecorded.filter((call) => call.answered === "live").length;
  const refused = divergence.unrecorded.length - live;
  if (divergence.unrecorded.length > 0) {
    const how = [live > 0 ? `${live} live` : "", refused > 0 ? `${refused} refused` : ""].filter(Boolean).join(", ");
    phrases.push(`${plural(divergence.unrecorded.length, "call", "calls")} with no recording (${how})`);
  }
  if (divergence.neverMade.length > 0) phrases.push(`${plural(divergence.neverMade.length, "recorded call", "recorded calls")} never made`);
  if (divergence.argumentMismatches.length > 0) phrases.push(plural(divergence.argumentMismatches.length, "argument mismatch", "argument mismatches"));
  const first = divergence.firstRequestDifference;
  if (first !== undefined) phrases.push(`request differs from step ${first.step} (${first.path})`);
  return phrases;
}

export function divergenceDetails(divergence: Divergence): string[] {
  return [
    ...divergence.unrecorded.map((call) => `Step ${call.step}: ${call.name} ${short(call.input)} had no recording (${call.answered === "live" ? "run live" : "refused"}).`),
    ...divergence.neverMade.map((call) => `Recorded step ${call.step}: ${call.name} ${short(call.input)} was never made.`),
    ...divergence.argumentMismatches.map((mismatch) => `Step ${mismatch.step}: ${mismatch.tool} at ${mismatch.path || "(input)"}: recorded ${short(mismatch.recorded)}, new ${short(mismatch.new)}.`),
  ];
}

function row(one: ExperimentCase, compared: Comparison["cases"][number] | undefined): CaseRow {
  const baseline = new Map((compared?.scores ?? []).map((score) => [score.scorer, score]));
  const scores = one.scores.map((score): ScoreCell => {
    const against = baseline.get(score.scorer);
    return against === undefined ? { ...score } : { ...score, baseline: against.baseline, delta: against.delta };
  });
  const made: CaseRow = { n: one.n, state: one.state, regression: compared?.regression ?? false, scores, divergence: [], divergenceDetails: [] };
  if (one.reason !== undefined) made.reason = one.reason;
  if (one.facts !== undefined) {
    made.costUsd = one.facts.spentUsd;
    made.steps = one.facts.steps;
  }
  if (compared !== undefined) {
    made.costDelta = compared.costUsd.delta;
    made.stepsDelta = compared.steps.delta;
  }
  if (one.divergence !== undefined) {
    made.divergence = divergencePhrases(one.divergence);
    made.divergenceDetails = divergenceDetails(one.divergence);
  }
  if (one.runId !== undefined) made.runId = one.runId;
  if (one.sourceRunId !== undefined) made.recordingId = one.sourceRunId;
  return made;
}

/** Every case as a row: in the comparison's order when there is one (regressions first), then any case it lacks by number. */
export function caseRows(view: ExperimentView, comparison: Comparison | undefined): CaseRow[] {
  const compared = new Map((comparison?.cases ?? []).map((one) => [one.n, one]));
  const order = new Map((comparison?.cases ?? []).map((one, index) => [one.n, index]));
  const rank = (n: number) => order.get(n) ?? Number.MAX_SAFE_INTEGER;
  return [...view.cases].sort((a, b) => rank(a.n) - rank(b.n) || a.n - b.n).map((one) => row(one, compared.get(one.n)));
}

/** How far along it is: "2 of 3 ended (2 done), 1 running". */
export function progressText(progress: ExperimentProgress): string {
  const ended = progress.done + progress.failed + progress.skipped + progress.cancelled;
  const how = (["done", "failed", "skipped", "cancelled"] as const).filter((key) => progress[key] > 0).map((key) => `${progress[key]} ${key}`);
  const open = (["running", "scoring", "pending"] as const).filter((key) => progress[key] > 0).map((key) => `${progress[key]} ${key}`);
  return [`${ended} of ${progress.total} ended${how.length === 0 ? "" : ` (${how.join(", ")})`}`, ...open].join(", ");
}

/**
 * What the experiment ran: "agent ticket-triage · v3" (the variant as given: a name alone is the
 * version that was latest when it was made), or the fields it changed ("changed: system, script").
 */
export function variantText(variant: Variant): string {
  if ("agent" in variant) {
    const agent: unknown = variant.agent;
    if (typeof agent === "string") return `agent ${agent}`;
    const { name, version } = agent as { name: string; version?: number };
    return version === undefined ? `agent ${name}` : `agent ${name} · v${version}`;
  }
  const changed = Object.keys(variant);
  return changed.length === 0 ? "the recordings as they were" : `changed: ${changed.join(", ")}`;
}
