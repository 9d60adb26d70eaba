// One step of an experiment (its object's alarm, docs/evals.md "Experiments"): the cases whose runs
// ended are scored, the cases that may start do (as many as `concurrency` at once, each only when
// its run's budget, the smaller of its own and what the budget has left unheld, is at least the
// minimum: src/evals/case-budget.ts), and an experiment with no case left to run ends. Each move of a case is committed before the next thing happens:
// - a case is marked running (its run's id and its hold) before its run is made; a crash between
//   the two leaves a running case not known to be made, which the next step makes again with the
//   same derived id and body hash, so the run object answers the run it made (never a second one);
// - a scored case is finished, its spend counted and its event logged in one transaction; a crash
//   before it scores it again (its judge calls are journaled: judge-store.ts), never twice.
// A run object that cannot be reached is tried again CASE_ATTEMPTS times, then the case fails.
import type { ExperimentEvent } from "../../../api/resources/eval-types";
import { floorOf, judgeUsdOf, runBudgetOf, startDecision } from "../../../evals/case-budget";
import { limitsOf } from "../../../config/settings";
import { usd } from "../../../lib/money";
import { appendEvent, type LoggedEvent } from "../../events/log/event-log";
import type { Recording } from "../../../replay/recording";
import { runOf } from "../../schedule/fire-run";
import { isoNow } from "../../storage/clock";
import { createCaseRun, prepareCase, withRunBudget, type PreparedCase } from "../cases/case-start";
import { scoreCase, type JudgeJournal } from "../cases/case-scoring";
import { addSpent, countAttempt, countStates, finishCase, markCreated, markStarting, readCase, readCases, readExperiment, reservedUsd, setStatus, settleCase, type CaseRow, type ExperimentSpec } from "./experiment-store";
import { caseView, progressOf } from "./experiment-view";
import { JUDGE_MAX_USD_DEFAULT } from "../cases/judge-call";
import { judged, recordJudged } from "../cases/judge-store";

/** Attempts to reach a case's run object before the case fails. */
export const CASE_ATTEMPTS = 5;
/** A case whose run object could not be reached is tried again this long after. */
export const CASE_RETRY_MS = 10_000;

/**
 * Where a test may stop a step, as a crash would: after a case was marked running, after its run was
 * made, after it was scored; after a judge answered and before its verdict was stored, and after that.
 */
export type CrashPoint = "case-marked" | "case-made" | "case-scored" | "judge-answered" | "judge-recorded";

export type StepDeps = {
  env: Env;
  sql: SqlStorage;
  transaction: <T>(work: () => T) => T;
  /** Logged events, sent to the experiment's watchers. */
  send: (events: LoggedEvent[]) => void;
  /**
   * What preparing a recorded case read of its recording, by case, kept in memory for its scoring
   * (an instance that died takes it along: its scoring reads the recording again).
   */
  recordings: Map<number, Recording>;
  /**
   * The preparations of the next pending cases, started ahead while the cases before them run (reads
   * only, kept in memory: one that failed, or an instance that died, prepares the case again).
   */
  prepared: Map<number, Promise<PreparedCase | undefined>>;
  crash?: (point: CrashPoint) => void;
};

/** What the object does next: step again now, in a while, or wait for a case run's change. */
export type NextStep = "now" | "retry" | "idle";

/** Inside a transaction: the event, kept in `logged` to be sent once it committed. */
export function logEvent(sql: SqlStorage, event: ExperimentEvent, logged: LoggedEvent[]): void {
  const made = appendEvent(sql, event, isoNow());
  if (made !== undefined) logged.push(made);
}

/** Runs `work` in one transaction, then sends the events it logged. */
export function committed(deps: Pick<StepDeps, "transaction" | "send">, work: (logged: LoggedEvent[]) => void): void {
  const logged: LoggedEvent[] = [];
  deps.transaction(() => work(logged));
  deps.send(logged);
}

function spentOf(deps: StepDeps): number {
  return readExperiment(deps.sql)?.spentUsd ?? 0;
}

function logCaseEnded(deps: StepDeps, n: number, logged: LoggedEvent[]): void {
  logEvent(deps.sql, { type: "case-ended", case: caseView(readCase(deps.sql, n)!), spentUsd: spentOf(deps), progress: progressOf(deps.sql) }, logged);
}

function settle(deps: StepDeps, n: number, state: "failed" | "skipped" | "cancelled", reason: string, spentUsd = 0): void {
  deps.recordings.delete(n);
  deps.prepared.delete(n);
  committed(deps, (logged) => {
    settleCase(deps.sql, n, state, reason);
    if (spentUsd > 0) addSpent(deps.sql, spentUsd, isoNow());
    logCaseEnded(deps, n, logged);
  });
}

/** What a case's judge calls may cost at most: each rubric's maxUsd, for the case's run and (when the baseline is "recordings") its recording. */
function judgeHolds(spec: ExperimentSpec, row: CaseRow): number[] {
  const sides = row.sourceRunId !== undefined && spec.baseline === "recordings" ? 2 : 1;
  return spec.scorers.flatMap((scorer) => (scorer.type === "rubric" ? Array.from({ length: sides }, () => scorer.maxUsd ?? JUDGE_MAX_USD_DEFAULT) : []));
}

/** Makes a case's run (or finds the one made before a crash). "retry": its object could not be reached. */
async function makeRun(deps: StepDeps, n: number, prepared: PreparedCase): Promise<"made" | "retry" | "ended"> {
  let made: Awaited<ReturnType<typeof createCaseRun>>;
  try {
    made = await createCaseRun(prepared, deps.env);
  } catch (error) {
    const attempts = deps.transaction(() => countAttempt(deps.sql, n));
    if (attempts < CASE_ATTEMPTS) return "retry";
    settle(deps, n, "failed", `The case's run could not be made after ${attempts} attempts: ${error instanceof Error ? error.message : String(error)}`);
    return "ended";
  }
  deps.crash?.("case-made");
  if (!made.outcome.ok) {
    settle(deps, n, "failed", made.outcome.error.message);
    return "ended";
  }
  committed(deps, (logged) => {
    markCreated(deps.sql, n);
    logEvent(deps.sql, { type: "case-started", n, runId: made.runId, progress: progressOf(deps.sql) }, logged);
  });
  return "made";
}

/** Cases marked running whose run is not known to be made (a crash, an unreachable object): made again, at once. */
async function remakeCases(deps: StepDeps, spec: ExperimentSpec): Promise<NextStep> {
  // Its run gets the budget it was given when marked (its hold less its judge's), whatever was spent since.
  const made = await Promise.all(
    readCases(deps.sql, "running")
      .filter((one) => !one.created)
      .map(async (row) => {
        const prepared = withRunBudget(await prepareCase(deps.env, spec, row), runBudgetOf(row.reservedUsd, judgeHolds(spec, row)));
        keepRecording(deps, row.n, prepared);
        return makeRun(deps, row.n, prepared);
      }),
  );
  return made.includes("retry") ? "retry" : "idle";
}

/** The case's preparation: the one started ahead for it when it did not fail, else a new one. */
async function preparedCase(deps: StepDeps, spec: ExperimentSpec, row: CaseRow): Promise<PreparedCase> {
  return (await deps.prepared.get(row.n)) ?? prepareCase(deps.env, spec, row);
}

/** Starts preparing the cases that start next (as many as `concurrency`), so that their reads are done by the time there is room. */
function prepareAhead(deps: StepDeps, spec: ExperimentSpec): void {
  for (const row of readCases(deps.sql, "pending", spec.concurrency)) {
    if (!deps.prepared.has(row.n)) deps.prepared.set(row.n, prepareCase(deps.env, spec, row).catch(() => undefined));
  }
}

/** Keeps what preparing a recorded case read of its recording, for its scoring. */
function keepRecording(deps: StepDeps, n: number, prepared: PreparedCase): void {
  if (prepared.kind === "fork") deps.recordings.set(n, prepared.recording);
}

/**
 * Starts what may start, as many as `concurrency` leaves room for: the next pending cases are
 * prepared at once (reads only), then decided one after another in their order, each marked running
 * (committed) before any run is made, then their runs made at once. "retry" when a run object
 * could not be reached.
 */
async function startPending(deps: StepDeps, spec: ExperimentSpec): Promise<NextStep> {
  let next: NextStep = "idle";
  const minUsd = limitsOf(deps.env).experimentCaseMinUsd;
  for (;;) {
    const room = spec.concurrency - (countStates(deps.sql).get("running") ?? 0);
    const rows = room > 0 ? readCases(deps.sql, "pending", room) : [];
    if (rows.length === 0) break;
    const prepared = await Promise.all(rows.map((row) => preparedCase(deps, spec, row)));
    const starting: { n: number; prepared: PreparedCase }[] = [];
    let waits = false;
    for (const [index, row] of rows.entries()) {
      const one = prepared[index]!;
      if (one.kind === "refused") {
        settle(deps, row.n, "failed", one.outcome.ok ? "Refused." : one.outcome.error.message);
        continue;
      }
      const judge = judgeHolds(spec, row);
      const need = { runBudgetUsd: one.budgetUsd, judgeCallsUsd: judge };
      const decision = startDecision({ budgetUsd: spec.budgetUsd, spentUsd: spentOf(deps), reservedUsd: reservedUsd(deps.sql) }, need, minUsd);
      if (decision.kind === "wait") {
        waits = true;
        break;
      }
      if (decision.kind === "skip") {
        const left = usd(Math.max(0, spec.budgetUsd - spentOf(deps)));
        const judged = judge.length === 0 ? "" : ` beside its judge calls' $${judgeUsdOf(judge)}`;
        settle(deps, row.n, "skipped", `Skipped: the experiment has $${left} of its budget left, less than the $${floorOf(need, minUsd)} a case's run starts with${judged} (EXPERIMENT_CASE_MIN_USD, or the run's own budget when less).`);
        continue;
      }
      deps.transaction(() => markStarting(deps.sql, row.n, one.run.id, decision.holdUsd));
      deps.prepared.delete(row.n);
      deps.crash?.("case-marked");
      keepRecording(deps, row.n, one);
      starting.push({ n: row.n, prepared: withRunBudget(one, decision.runBudgetUsd) });
    }
    const made = await Promise.all(starting.map((one) => makeRun(deps, one.n, one.prepared)));
    if (made.includes("retry")) next = "retry";
    // A case that waits for the budget waits for a scored case to free some. Else the next round
    // gives the room a failed or skipped case left to the next pending ones (none left: it ends).
    if (waits) break;
  }
  prepareAhead(deps, spec);
  return next;
}

function journalOf(deps: StepDeps, n: number): JudgeJournal {
  return {
    judged: (side, scorer) => judged(deps.sql, n, side, scorer),
    record: (side, scorer, answer) => {
      deps.crash?.("judge-answered");
      deps.transaction(() => recordJudged(deps.sql, n, side, scorer, answer.verdict, answer.costUsd, isoNow()));
      deps.crash?.("judge-recorded");
    },
  };
}

/** What a case's run spent, read from its object (0 when it cannot be read). */
async function runSpent(env: Env, runId: string | undefined): Promise<number> {
  if (runId === undefined) return 0;
  const view = await runOf(env, runId).view().catch(() => undefined);
  return view?.ok === true ? view.value.spentUsd : 0;
}

/** Scores the cases whose runs ended, at once, each committed on its own; "retry" when one's run had not ended after all. `ended`: how many cases it ended. */
async function scoreCases(deps: StepDeps, spec: ExperimentSpec): Promise<{ next: NextStep; ended: number }> {
  const outcomes = await Promise.all(
    readCases(deps.sql, "scoring").map(async (row): Promise<"retry" | "ended"> => {
      const scored = await scoreCase(deps.env, spec, row, journalOf(deps, row.n), deps.recordings.get(row.n));
      if (scored.kind === "running") return "retry";
      if (scored.kind === "failed") settle(deps, row.n, "failed", scored.reason, await runSpent(deps.env, row.runId));
      else {
        committed(deps, (logged) => {
          finishCase(deps.sql, row.n, scored.result, scored.reason);
          addSpent(deps.sql, scored.runSpentUsd, isoNow());
          logCaseEnded(deps, row.n, logged);
        });
      }
      deps.recordings.delete(row.n);
      if (scored.kind === "scored") deps.crash?.("case-scored");
      return "ended";
    }),
  );
  const ended = outcomes.filter((one) => one === "ended").length;
  return { next: outcomes.includes("retry") ? "retry" : "idle", ended };
}

/** Ends the experiment when no case is left to run or score. */
function endIfDone(deps: StepDeps): boolean {
  const counts = countStates(deps.sql);
  if ((counts.get("pending") ?? 0) + (counts.get("running") ?? 0) + (counts.get("scoring") ?? 0) > 0) return false;
  committed(deps, (logged) => {
    setStatus(deps.sql, "finished", isoNow());
    logEvent(deps.sql, { type: "experiment-ended", status: "finished", spentUsd: spentOf(deps), progress: progressOf(deps.sql) }, logged);
  });
  return true;
}

/**
 * Scores the cases whose runs ended while the next ones start (a scored case still holds its share of
 * the budget until it is committed, so a start never counts on it); once some ended, what waited for
 * their budget or their room starts.
 */
export async function stepExperiment(deps: StepDeps): Promise<NextStep> {
  const experiment = readExperiment(deps.sql);
  if (experiment === undefined || experiment.status !== "running") return "idle";
  const { spec } = experiment;
  const remade = await remakeCases(deps, spec);
  const [scoring, starting] = await Promise.all([scoreCases(deps, spec), startPending(deps, spec)]);
  const after = scoring.ended > 0 ? await startPending(deps, spec) : "idle";
  if (endIfDone(deps)) return "idle";
  if ((countStates(deps.sql).get("scoring") ?? 0) > 0) return "now";
  return [remade, scoring.next, starting, after].includes("retry") ? "retry" : "idle";
}

/** Cancels what has not ended: pending and scoring cases at once, running ones with their runs (what those spent is counted). */
export async function cancelExperiment(deps: StepDeps): Promise<void> {
  const experiment = readExperiment(deps.sql);
  if (experiment === undefined || experiment.status !== "running") return;
  deps.transaction(() => setStatus(deps.sql, "cancelled", isoNow()));
  for (const row of readCases(deps.sql).filter((one) => one.state === "pending" || one.state === "running" || one.state === "scoring")) {
    let spent = 0;
    if (row.runId !== undefined && row.state !== "pending") {
      const cancelled = await runOf(deps.env, row.runId).cancel().catch(() => undefined);
      spent = cancelled?.ok === true ? cancelled.value.spentUsd : await runSpent(deps.env, row.runId);
    }
    settle(deps, row.n, "cancelled", "The experiment was cancelled.", spent);
  }
  committed(deps, (logged) => logEvent(deps.sql, { type: "experiment-ended", status: "cancelled", spentUsd: spentOf(deps), progress: progressOf(deps.sql) }, logged));
}
