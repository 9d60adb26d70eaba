// A case whose run ended, scored (docs/evals.md): its run's recording read for its facts, the run it
// replays read for its requests and calls, the divergence between the two, every scorer's verdict
// (src/evals/scorers), the rubric's through the experiment's journaled judge calls, and the
// recording's own scores (the baseline "recordings"; its rubric judged only when that is the
// experiment's baseline, since that costs a judge call). A run that waits (an ask, an approval, a
// client tool) is cancelled first: a case runs unattended. Reads only, but for the judge's calls
// and that cancel.
import type { CaseReference, RunFacts, Score } from "../../api/resources/eval-types";
import type { Outcome } from "../../api/types";
import { divergenceOf, firstRequestDifference } from "../../evals/divergence";
import { recordedCallsOf } from "../../evals/recorded-calls";
import { factsOf } from "../../evals/run-facts";
import { scoreRun } from "../../evals/scorers/score-run";
import type { Verdict } from "../../evals/scorers/verdict";
import type { ChatMessage } from "../../loop/types";
import { runOf } from "../schedule/fire-run";
import type { CaseResult, CaseRow, ExperimentSpec } from "./experiment-store";
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

export async function scoreCase(env: Env, spec: ExperimentSpec, row: CaseRow, journal: JudgeJournal): Promise<Scored> {
  const runId = row.runId!;
  const stub = runOf(env, runId);
  const view = unwrapOr(await stub.view(), `The case's run ${runId} cannot be read`);
  if (typeof view === "string") return { kind: "failed", reason: view };
  if (view.status === "running") return { kind: "running" };
  let reason: string | undefined;
  if (view.status === "waiting") {
    await stub.cancel();
    reason = `The run waited on ${view.waiting?.name ?? "the person"} (${view.waiting?.kind ?? "an answer"}): a case runs unattended, so it was cancelled.`;
  }
  const made = unwrapOr(await readRecording(env, runId), `The case's run ${runId} cannot be read`);
  if (typeof made === "string") return { kind: "failed", reason: made };
  const facts = factsOf(made);
  const input = made.segments[0]?.messages ?? [];
  const result: CaseResult = { facts, scores: await scoresOf(env, spec, row, "case", facts, input, journal, true) };
  if (row.sourceRunId !== undefined) {
    const source = unwrapOr(await readRecording(env, row.sourceRunId), `The recorded run ${row.sourceRunId} cannot be read`);
    const uses = unwrapOr(await stub.replayUses(), `The case's run ${runId} cannot be read`);
    if (typeof source === "string" || typeof uses === "string") return { kind: "failed", reason: typeof source === "string" ? source : (uses as string) };
    const recorded = factsOf(source);
    result.divergence = divergenceOf({ recorded: recordedCallsOf(source), uses, requestDifference: firstRequestDifference(source, made) });
    result.recordingFacts = { spentUsd: recorded.spentUsd, steps: recorded.steps, status: recorded.status };
    result.recordingScores = await scoresOf(env, spec, row, "recording", recorded, input, journal, spec.baseline === "recordings");
  }
  return { kind: "scored", result, runSpentUsd: facts.spentUsd, ...(reason === undefined ? {} : { reason }) };
}
