// Types of evals (docs/evals.md): datasets of cases, experiments that run every case against a
// variant, the scorers that judge each case, how a case's run diverged from its recording, and the
// comparison of two experiments. Shared by the edge, the objects and clients;
// ../schemas/evals/ validates these shapes.
import type { ChatMessage } from "../../loop/message-types.ts";
import type { AgentOfRun, CaseReplay, ExperimentOfRun, RecordedCall, RecordedValue, ReplayMode, RunStatus, StoppedBy, ToolRef } from "../types.ts";

export type { CaseReplay, ExperimentOfRun, RecordedCall, RecordedValue, ReplayMode };


/** What a case is expected to end with: the final text, or the typed output (`final`). */
export type CaseReference = { finalText?: string; output?: unknown };

/** One case of a dataset: a recorded run (its id), or an inline input (user messages). */
export type DatasetCase = {
  /** The case's number in the dataset, from 1; kept by every later version. */
  n: number;
  runId?: string;
  messages?: ChatMessage[];
  reference?: CaseReference;
  /** The dataset version that added it. */
  addedIn: number;
};

export type DatasetSummary = { name: string; version: number; description?: string; cases: number; createdAt: string; versionCreatedAt: string };

export type DatasetView = Omit<DatasetSummary, "cases"> & { cases: DatasetCase[] };

/** A scorer, as data. `name` labels its scores (default: its type, with the tool for tool scorers). */
export type Scorer =
  | { type: "exact"; name?: string; expected?: string; ignoreCase?: boolean; trim?: boolean }
  | { type: "contains"; name?: string; text: string | string[]; ignoreCase?: boolean }
  | { type: "regex"; name?: string; pattern: string; ignoreCase?: boolean }
  | { type: "json-schema"; name?: string; schema: Record<string, unknown> }
  | { type: "fields"; name?: string; expected?: Record<string, unknown> }
  | { type: "tool-called"; name?: string; tool: string; input?: Record<string, unknown> }
  | { type: "tool-not-called"; name?: string; tool: string }
  | { type: "cost"; name?: string; maxUsd: number }
  | { type: "steps"; name?: string; max: number }
  | { type: "rubric"; name?: string; rubric: string; provider?: "anthropic" | "openai" | "scripted"; model?: string; maxUsd?: number; script?: unknown };

/** One scorer's verdict on one run: 0..1, or null where it could not judge (no reference to compare with), with why. */
export type Score = { scorer: string; score: number | null; reason: string };

/** How a case run answered one call: from its recording, live, or refused. */
export type ReplayAnswer = "recording" | "live" | "refused";

/**
 * How a case's run answered one of its calls (its run keeps them): `index` is the recorded call
 * that matches it (taken from the recording, or, in mode live, run live beside it).
 */
export type ReplayUse = { step: number; name: string; input: unknown; answered: ReplayAnswer; index?: number };

/** A call as the model made it: its tool and input, and the model step whose turn made it. */
export type CallFact = { step: number; name: string; input: unknown };

/** What a scorer reads of a run: how it ended, what it said and handed in, what it spent, its calls. */
export type RunFacts = {
  runId: string;
  status: RunStatus;
  stoppedBy?: StoppedBy;
  finalText: string;
  /** The typed output or finish tool's output, when the run handed one in. */
  final?: unknown;
  spentUsd: number;
  steps: number;
  calls: CallFact[];
};

/** A call answered otherwise than from the recording. */
export type UnrecordedCall = { step: number; name: string; input: unknown; answered: "live" | "refused" };

/** A tool whose call had no recording while the recording holds an unused call of that tool: where their inputs first differ. */
export type ArgumentMismatch = { tool: string; step: number; path: string; recorded: unknown; new: unknown };

/** How a case's run went otherwise than its recording. */
export type Divergence = {
  /** Calls answered from the recording. */
  fromRecording: number;
  /** Calls with no recording: run live or refused. */
  unrecorded: UnrecordedCall[];
  /** Recorded calls the case's run never made (`step`: the recording's). */
  neverMade: CallFact[];
  argumentMismatches: ArgumentMismatch[];
  /** The first model step whose request differs from the recording's, and the path of its first differing field. */
  firstRequestDifference?: { step: number; path: string };
};

/** A variant: a stored agent's version, or changes to each recording's own request. */
export type Variant = { agent: AgentOfRun } | VariantChanges;

/** Changes to each recording's own request ({} re-runs the recordings as they were). */
export type VariantChanges = { system?: string; provider?: "anthropic" | "openai" | "scripted"; model?: string; tools?: ToolRef[]; maxSteps?: number; maxTokens?: number; budget?: { usd: number; finishAt?: number }; script?: unknown[] };

export type ExperimentStatus = "running" | "finished" | "cancelled";

export type CaseState = "pending" | "running" | "scoring" | "done" | "failed" | "skipped" | "cancelled";

/** One case of an experiment, as its view and report show it. */
export type ExperimentCase = {
  n: number;
  state: CaseState;
  /** The recorded run the case forks (absent for an inline input). */
  sourceRunId?: string;
  /** The case's own run, once made. */
  runId?: string;
  /** Its run's facts, once it ended. */
  facts?: RunFacts;
  scores: Score[];
  /** The recording scored by the same scorers (the baseline "recordings"). */
  recordingScores?: Score[];
  recordingFacts?: Pick<RunFacts, "spentUsd" | "steps" | "status">;
  divergence?: Divergence;
  /** What the judge's calls for this case cost. */
  judgeUsd: number;
  /** Why a case failed, was skipped or cancelled. */
  reason?: string;
};

export type ExperimentProgress = { total: number; pending: number; running: number; scoring: number; done: number; failed: number; skipped: number; cancelled: number };

export type ExperimentView = {
  id: string;
  name?: string;
  dataset: { name: string; version: number };
  variant: Variant;
  mode: ReplayMode;
  budgetUsd: number;
  concurrency: number;
  scorers: Scorer[];
  baseline?: string;
  status: ExperimentStatus;
  progress: ExperimentProgress;
  /** What ended cases and the judge spent. */
  spentUsd: number;
  /** What running cases may still spend (their budgets, and their judges'), held against the budget. */
  reservedUsd: number;
  createdAt: string;
  updatedAt: string;
  endedAt?: string;
  lastSeq: number;
  cases: ExperimentCase[];
};

export type ExperimentSummary = Omit<ExperimentView, "cases" | "variant" | "scorers" | "lastSeq">;

/** One scorer's score of a case against its baseline. */
export type ScoreDelta = { scorer: string; baseline: number | null; score: number | null; delta: number | null };

export type CaseComparison = {
  n: number;
  /** The case's state in the experiment: skipped, failed or cancelled is a case it did not score. */
  state: CaseState;
  /** Any of its scores fell, or the experiment did not score it while the baseline has it. */
  regression: boolean;
  scores: ScoreDelta[];
  costUsd: { baseline: number | null; new: number | null; delta: number | null };
  steps: { baseline: number | null; new: number | null; delta: number | null };
  runId?: string;
  baselineRunId?: string;
};

export type Comparison = {
  experimentId: string;
  /** An experiment id, or "recordings". */
  baseline: string;
  /** Every case, regressions first (the largest drop first), then by case number. */
  cases: CaseComparison[];
  totals: {
    cases: number;
    regressions: number;
    improvements: number;
    /** Cases the experiment did not score (skipped, failed, cancelled); the scorers' means leave them out. */
    unscored: number;
    /** Each scorer's mean over the cases both sides scored. */
    scores: ScoreDelta[];
    costUsd: { baseline: number; new: number; delta: number };
    steps: { baseline: number; new: number; delta: number };
  };
};

/** An experiment's events (GET /v1/experiments/{id}/events), each stored with a gap-free seq. */
export type ExperimentEvent =
  | { type: "experiment-started"; progress: ExperimentProgress }
  | { type: "case-started"; n: number; runId: string; progress: ExperimentProgress }
  | { type: "case-ended"; case: ExperimentCase; spentUsd: number; progress: ExperimentProgress }
  | { type: "experiment-ended"; status: "finished" | "cancelled"; spentUsd: number; progress: ExperimentProgress };
