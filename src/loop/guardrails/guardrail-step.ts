// One check as one journal step: the budget first (a model-graded check spends), then the check,
// its verdict stored with a `guardrail` event. A replay reads the verdict back: no check is asked
// twice once its answer is stored. A pure check (the data kinds) is no step: worked out again on a
// replay, the same, its event told inline (the run writes it with the next commit, once); on a tool
// call that runs, its passing verdict rides on the call's `tool-call` event instead (tool-guard.ts).
// A check that throws stores nothing: the error ends the loop as a failed model call's does (a
// retry of the run asks the check again).
import { assertBudget, spentNow } from "../guards/budget";
import { journaled, type LoopState } from "../loop-state";
import { addUsd, usd } from "../../lib/money";
import type { GuardrailAction, GuardrailCheck, GuardrailEvent, GuardrailPass, GuardrailStepValue, GuardrailSubject, LoopGuardrail } from "./guardrail-types";

export const guardrailKeys = {
  input: (name: string) => `guardrail/input/${name}`,
  /** The k-th take of the person's messages before model call n (incoming.ts). */
  taken: (n: number, k: number, name: string) => `guardrail/input/${n}/${k}/${name}`,
  tool: (n: number, callId: string, name: string) => `guardrail/tool/${n}/${callId}/${name}`,
  output: (n: number, name: string) => `guardrail/output/${n}/${name}`,
} as const;

/**
 * Runs `guardrail` on `subject` as the step `key`; `onFail` is what a failure does here (an output
 * check past its retries stops instead of retrying). The verdict's cost counts from now on.
 */
export async function guardrailStep(
  state: LoopState,
  key: string,
  step: number,
  guardrail: LoopGuardrail,
  subject: GuardrailSubject,
  onFail: Exclude<GuardrailAction, "pass">,
): Promise<GuardrailStepValue> {
  if (guardrail.decide !== undefined) return pureStep(state, key, step, guardrail, guardrail.decide, subject, onFail);
  const value = await journaled<GuardrailStepValue>(state, key, async (signal) => {
    const { budget } = state.options;
    const spent = await spentNow(budget, state.stepCosts);
    assertBudget(budget, spent);
    const budgetLeftUsd = budget === undefined ? Number.POSITIVE_INFINITY : Math.max(0, budget.usd - spent);
    const checked = await guardrail.check(subject, { signal, key, budgetLeftUsd });
    const { value, event } = verdictOf(key, step, guardrail, subject, checked, onFail);
    return { value, costUsd: value.costUsd, events: [event] };
  });
  state.stepCosts = addUsd(state.stepCosts, value.costUsd);
  return value;
}

function verdictOf(key: string, step: number, guardrail: LoopGuardrail, subject: GuardrailSubject, checked: GuardrailCheck, onFail: Exclude<GuardrailAction, "pass">): { value: GuardrailStepValue; event: GuardrailEvent } {
  const costUsd = usd(checked.costUsd ?? 0);
  const action: GuardrailAction = checked.pass ? "pass" : onFail;
  const value: GuardrailStepValue = { pass: checked.pass, reason: checked.reason, costUsd, action };
  const event: GuardrailEvent = { type: "guardrail", key, step, name: guardrail.name, stage: guardrail.stage, pass: checked.pass, action, reason: checked.reason, costUsd };
  if (subject.stage === "tool") {
    event.callId = subject.callId;
    event.tool = subject.name;
  }
  return { value, event };
}

/** A pure check's verdict and its inline event (no step of its own). */
export function inlineVerdict(key: string, step: number, guardrail: LoopGuardrail, subject: GuardrailSubject, checked: GuardrailCheck, onFail: Exclude<GuardrailAction, "pass">): { value: GuardrailStepValue; event: GuardrailEvent } {
  const { value, event } = verdictOf(key, step, guardrail, subject, { pass: checked.pass, reason: checked.reason }, onFail);
  event.inline = true;
  return { value, event };
}

/** A pure check (its `decide`): asked at once (no step, nothing spent), its verdict told inline at once. A cancel is checked as a new step's is. */
function pureStep(state: LoopState, key: string, step: number, guardrail: LoopGuardrail, decide: NonNullable<LoopGuardrail["decide"]>, subject: GuardrailSubject, onFail: Exclude<GuardrailAction, "pass">): GuardrailStepValue {
  state.signal.throwIfAborted();
  const { value, event } = inlineVerdict(key, step, guardrail, subject, decide(subject), onFail);
  state.emit(event);
  return value;
}

/**
 * The inline `guardrail` events of the passing verdicts a `tool-call` event carries (its
 * `guardrailsPassed`), as if each had been told alone: one span each (step-spans.ts).
 */
export function passedVerdicts(call: { step: number; callId: string; name: string; guardrailsPassed?: readonly GuardrailPass[] }): GuardrailEvent[] {
  return (call.guardrailsPassed ?? []).map(({ name, reason }) => ({ type: "guardrail", key: guardrailKeys.tool(call.step, call.callId, name), step: call.step, name, stage: "tool", pass: true, action: "pass", reason, costUsd: 0, callId: call.callId, tool: call.name, inline: true }));
}

const NONE: readonly LoopGuardrail[] = Object.freeze([]);

/** The checks of `stage`, in the order given (a tool check only for the tools it names): listed once per loop, stage and tool (state.guardrailLists), not per call. */
export function guardrailsAt(state: LoopState, stage: LoopGuardrail["stage"], tool?: string): readonly LoopGuardrail[] {
  const all = state.options.guardrails;
  if (all === undefined || all.length === 0) return NONE;
  state.guardrailLists ??= new Map();
  let atStage = state.guardrailLists.get(stage);
  if (atStage === undefined) {
    atStage = { all: all.filter((guardrail) => guardrail.stage === stage), byTool: new Map() };
    state.guardrailLists.set(stage, atStage);
  }
  if (tool === undefined) return atStage.all;
  // The tool asked last (a run's calls are mostly of one tool or a few): no look-up.
  if (atStage.lastTool === tool) return atStage.lastList!;
  let list = atStage.byTool.get(tool);
  if (list === undefined) {
    list = atStage.all.filter((guardrail) => guardrail.tools === undefined || guardrail.tools.includes(tool));
    atStage.byTool.set(tool, list);
  }
  atStage.lastTool = tool;
  atStage.lastList = list;
  return list;
}
