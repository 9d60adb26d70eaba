// Guardrails as the loop sees them: checks that can stop a run, each at one fixed point of the
// loop (docs/guardrails.md). What a check does (a regex, an HTTP call, a model call) is the
// caller's; the loop journals each verdict as a step, so a replay never asks a check twice.

/** Where a check runs: on the question before the first model call and any tool, on each tool call before it runs, on the final answer before the run ends. */
export type GuardrailStage = "input" | "tool" | "output";

/**
 * What a failed check does. input: `stop`. tool: `reject` (the model gets the reason as the call's
 * error result), `ask` (the person approves or denies the call) or `stop`. output: `retry` (the
 * model answers again with the reason, at most `retries` times, then stop) or `stop`.
 */
export type GuardrailOnFail = "stop" | "reject" | "ask" | "retry";

/** What a check looks at. */
export type GuardrailSubject =
  | { stage: "input"; text: string }
  | { stage: "tool"; callId: string; name: string; input: unknown }
  | { stage: "output"; text: string; final?: unknown };

/** A check's answer; `costUsd` counts in the run's budget (a model-graded check's call). */
export type GuardrailCheck = { pass: boolean; reason: string; costUsd?: number };

export type GuardrailContext = {
  signal: AbortSignal;
  /** The check's step key (`guardrail/…`), stable across replays: an HTTP check's idempotency key is made from it. */
  key: string;
  /** What the run's budget has left (Infinity without one): a check that spends holds itself to it. */
  budgetLeftUsd: number;
};

export type LoopGuardrail = {
  /** Unique within its stage; part of its step keys. */
  name: string;
  stage: GuardrailStage;
  onFail: GuardrailOnFail;
  /** Output checks with onFail `retry`: how many times the model may answer again (default 2). */
  retries?: number;
  /** Tool checks: only calls of these tools are checked (default: every call). */
  tools?: readonly string[];
  /**
   * Given, the check is pure (the data kinds): its answer at once, with no promise made, which the
   * loop asks instead of `check`. Its verdict is a function of the subject alone, so it is not a
   * journal step of its own — a replay works it out again, the same — and its event is written
   * with the next step's commit (`inline` on the event). Asked nothing outside, it costs nothing.
   */
  decide?: (subject: GuardrailSubject) => GuardrailCheck;
  check(subject: GuardrailSubject, context: GuardrailContext): Promise<GuardrailCheck>;
};

/**
 * A passing verdict of a pure check on a tool call that runs, as its `tool-call` event carries it
 * (`guardrailsPassed`) instead of a `guardrail` event of its own: the step stays one row of events
 * for its call however many data checks it has (tool-guard.ts). Stage `tool`, action `pass`, cost 0.
 */
export type GuardrailPass = { name: string; reason: string };

/** A loop's checks listed by stage, and a stage's by tool (guardrailsAt): made once per loop, not per call. */
export type GuardrailLists = Map<GuardrailStage, { all: readonly LoopGuardrail[]; byTool: Map<string, readonly LoopGuardrail[]>; lastTool?: string; lastList?: readonly LoopGuardrail[] }>;

/** The pure checks a call passed, held for its `tool-call` event (tool-guard.ts, tool-step.ts), in the shape passedVerdicts reads. */
export type PassedCall = { step: number; callId: string; name: string; guardrailsPassed: readonly GuardrailPass[] };

/** What a failed check did. `pass`: it passed. */
export type GuardrailAction = "pass" | "stop" | "reject" | "ask" | "retry";

/** A check that ended the run: its name, stage and reason (the run's `guardrail`). */
export type GuardrailTrip = { name: string; stage: GuardrailStage; reason: string };

/** What the journal stores for one check. */
export type GuardrailStepValue = { pass: boolean; reason: string; costUsd: number; action: GuardrailAction };

/** One verdict, journaled with its step. */
export type GuardrailEvent = {
  type: "guardrail";
  key: string;
  /** The model call it follows (0: before the first). */
  step: number;
  name: string;
  stage: GuardrailStage;
  pass: boolean;
  action: GuardrailAction;
  reason: string;
  costUsd: number;
  /** Tool checks: the call checked. */
  callId?: string;
  tool?: string;
  /** A pure check's verdict: no journal step of its own; its event goes with the next commit. */
  inline?: true;
};

export const DEFAULT_OUTPUT_RETRIES = 2;
