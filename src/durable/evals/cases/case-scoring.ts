// A case whose run ended, scored (docs/evals.md): its run's recording read for its facts, the run it
// replays read for its requests and calls, the divergence between the two, every scorer's verdict
// (src/evals/scorers), the rubric's through the experiment's journaled judge calls, and the
// recording's own scores (the baseline "recordings"; its rubric judged only when that is the
// experiment's baseline, since that costs a judge call). A run that waits (an ask, an approval, a
// client tool) is cancelled first: a case runs unattended. Reads only, but for the judge's calls
// and that cancel; the reads of a case are made at once, not one after another.
import type { CaseReference, ReplayUse, RunFacts, Score } from "../../../api/resources/eval-types";
import type { Outcome } from "../../../api/types";
import { divergenceOf, firstRequestDifference } from "../../../evals/divergence";
import { recordedCallsOf } from "../../../evals/recorded-calls";
import { factsOf } from "../../../evals/run-facts";
import { scoreRun } from "../../../evals/scorers/score-run";
import type { Verdict } from "../../../evals/scorers/verdict";
import type { ChatMessage } from "../../../loop/types";
import type { Recording } from "../../../replay/recording";
import { runOf } from "../../schedule/fire-run";
import type { CaseResult, CaseRow, ExperimentSpec } from "../experiment/experiment-store";
import type { JudgeSide } from "./judge-store";
import { callJudge, type JudgeAnswer, type RubricScorer } from "./judge-call";
import { readRecording } from "./recording-read";

/** The experiment's journal of judge calls: a verdict already made, and how a new one is kept. */
export type JudgeJournal = {
  judged: (side: JudgeSide, scorer: number) => Verdict | undefined;
  record: (side: JudgeSide, scorer: number, answer: JudgeAnswer) => void;
};

export type Scored = { kind: "scored"; result: CaseResult; runSpentUsd: number; reason?: string } | { kind: "running" } | { kind: "failed"; reason: string };

const NOT_JUDGED = 'Not judged: a recording\'s rubric is judged only when the experiment\'s baseline is "recordings".';

function unwrapOr<T>(outcome: Outcome<T>, what: string): T | string {
  return outcome.ok ? outcome.value : `${what}: ${outcome.error.message}`;
}

async function scoresOf(env: Env, spec: ExperimentSpec, row: CaseRow, side: JudgeSide, facts: RunFacts, input: ChatMessage[], journal: JudgeJournal, judge: boolean): Promise<Score[]> {
  const verdicts = new Map<number, Verdict>();
  for (const [index, scorer] of spec.scorers.entries()) {
    if (scorer.type !== "rubric") continue;
    if (!judge) {
      verdicts.set(index, { score: null, reason: NOT_JUDGED });
      continue;
    }
    let verdict = journal.judged(side, index);
    if (verdict === undefined) {
      const answer = await callJudge(env, scorer as RubricScorer, { experimentId: spec.id, n: row.n, input, facts, reference: row.reference });
      journal.record(side, index, answer);
      verdict = answer.verdict;
    }
    verdicts.set(index, verdict);
  }
  return scoreRun(spec.scorers, facts, row.reference as CaseReference | undefined, (index) => verdicts.get(index));
}

/** The reads a case's scoring needs, made at once: its run's recording, and (for a recorded case) how its calls were answered and the recording it replays, unless `source` already holds it. */
async function caseReads(env: Env, row: CaseRow, source: Recording | undefined): Promise<{ made: Recording; uses?: ReplayUse[]; source?: Recording } | string> {
  const runId = row.runId!;
  const sourceRunId = row.sourceRunId;
  const [made, uses, recorded] = await Promise.all([
    readRecording(env, runId),
    sourceRunId === undefined ? undefined : runOf(env, runId).replayUses(),
    sourceRunId === undefined || source !== undefined ? undefined : readRecording(env, sourceRunId),
  ]);
  const own = unwrapOr(made, `The case's run ${runId} cannot be read`);
  if (typeof own === "string") return own;
  if (sourceRunId === undefined) return { made: own };
  const replayed = source ?? unwrapOr(recorded!, `The recorded run ${sourceRunId} cannot be read`);
  if (typeof replayed === "string") return replayed;
  const used = unwrapOr(uses!, `The case's run ${runId} cannot be read`);
  if (typeof used === "string") return used;
  return { made: own, uses: used, source: replayed };
}

/**
 * Scores the case whose run ended. `source`: the recording it replays, when its preparation read it
 * in this instance (else it is read here). The case run's status comes from its recording (its view
 * is in it); only a run that waits is asked for more, cancelled and read again.
 */
export async function scoreCase(env: Env, spec: ExperimentSpec, row: CaseRow, journal: JudgeJournal, source?: Recording): Promise<Scored> {
  const runId = row.runId!;
  let read = await caseReads(env, row, source);
  if (typeof read === "string") return { kind: "failed", reason: read };
  const view = read.made.run;
  if (view.status === "running") return { kind: "running" };
  let reason: string | undefined;
  if (view.status === "waiting") {
    await runOf(env, runId).cancel();
    reason = `The run waited on ${view.waiting?.name ?? "the person"} (${view.waiting?.kind ?? "an answer"}): a case runs unattended, so it was cancelled.`;
    read = await caseReads(env, row, read.source);
    if (typeof read === "string") return { kind: "failed", reason: read };
  }
  const { made } = read;
  const facts = factsOf(made);
  const input = made.segments[0]?.messages ?? [];
  const result: CaseResult = { facts, scores: await scoresOf(env, spec, row, "case", facts, input, journal, true) };
  if (read.source !== undefined) {
    const recorded = factsOf(read.source);
    result.divergence = divergenceOf({ recorded: recordedCallsOf(read.source), uses: read.uses!, requestDifference: firstRequestDifference(read.source, made) });
    result.recordingFacts = { spentUsd: recorded.spentUsd, steps: recorded.steps, status: recorded.status };
    result.recordingScores = await scoresOf(env, spec, row, "recording", recorded, input, journal, spec.baseline === "recordings");
  }
  return { kind: "scored", result, runSpentUsd: facts.spentUsd, ...(reason === undefined ? {} : { reason }) };
}
