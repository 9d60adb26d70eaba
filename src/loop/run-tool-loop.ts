// runToolLoop: a tool-calling conversation run to its end, every model call and tool call one
// step of the caller's journal. The loop keeps no state of its own: a restart with the
// same journal replays every finished step and runs only what is new.
import { followUpFor, isNearEmpty, isShort } from "./guards/answer-follow-up";
import { BudgetExhausted } from "./guards/budget";
import { compact, shouldCompact } from "./context/compaction";
import { requestedSummary } from "./context/compaction-requests";
import { isBlank, textOf } from "./content";
import { lastTurnIndex } from "./context/context-view";
import { ContextOverflowError, Interrupted } from "./errors";
import { messagesWaiting, takeAfterInterrupt, takeMessages } from "./incoming";
import { openCalls } from "./history";
import { addUsage, append, createLoopState, spentUsd, stepsLeft, type LoopState } from "./loop-state";
import { runModelStep, type ModelStepValue } from "./model-step";
import { stepKeys } from "./step-keys";
import { ASK_TOOL, planCall, type CallPlan } from "./tool-calls/plan-call";
import { isStartWait, replyStep, startStep, toolStep, type StartValue, type ToolStepValue } from "./tool-calls/tool-step";
import { ToolPending } from "./tool-calls/tool-pending";
import { erroredAfter, haltText, joinWait, specOf } from "./tool-calls/toolset";
import type { AssistantMessage, Asked, RunToolLoopOptions, RunToolLoopResult, StoppedBy, ToolCall } from "./types";
import { addUsd } from "../lib/money";
import { checkLoop, type LoopOutcome } from "./guards/loops/loop-check";
import { checkInput } from "./guardrails/input-guard";
import { checkOutput } from "./guardrails/output-guard";
import { guardTurn, tellUnrun } from "./guardrails/tool-guard";
import type { GuardrailTrip } from "./guardrails/guardrail-types";

type Stop = {
  stoppedBy: StoppedBy;
  asked?: Asked;
  final?: unknown;
  hasFinal?: boolean;
  /** Why calls left open are not run, when it is not the stop itself ("Not run: <reason>."). */
  closeReason?: string;
  /** stoppedBy "guardrail": the check that stopped the run. */
  trip?: GuardrailTrip;
};

/** An interrupt's messages failed an input check inside a model step: the loop ends with the trip. */
class InputTripped extends Error {}

function tripped(trip: GuardrailTrip): Stop {
  return { stoppedBy: "guardrail", trip, closeReason: `guardrail ${trip.name}` };
}

/** Calls made on a step that offered no tool (the last step, or a final answer's one more call) are never run. */
export const LAST_STEP_REASON = "this was the last step";

const MAX_TOKENS_CUT =
  "Not run: the answer reached max_tokens before this call was complete. Make the call again, shorter.";

function toolMessage(call: ToolCall, value: ToolStepValue) {
  return { role: "tool" as const, toolCallId: call.id, content: value.content, ...(value.isError ? { isError: true } : {}) };
}

async function answerWith(state: LoopState, call: ToolCall, value: Promise<ToolStepValue>): Promise<ToolStepValue> {
  const settled = await value;
  state.stepCosts = addUsd(state.stepCosts, settled.costUsd);
  append(state, toolMessage(call, settled));
  return settled;
}

/** A call of the turn, what the loop does with it, and the client toolset it goes to (if any). */
type TurnCall = { call: ToolCall; plan: CallPlan; toolset?: string };

/**
 * How a turn is processed. `last`: it offered no callable tool but the finish tools. `cut`: the
 * answer was cut off (max_tokens). `counted`: its calls belong to the current question and count
 * toward the repeated-call guard (a given turn before the question's user message does not).
 */
type TurnOptions = { last: boolean; cut: boolean; counted: boolean; allowRepeats?: boolean };

/**
 * What the loop does with each open call of a turn, in call order: a pure pass (replays plan the
 * same). Calls answered after the turn are passed over, and on the last step only finish tools
 * are planned (the others are answered "Not run: this was the last step." when the loop stops).
 */
function planTurn(state: LoopState, message: AssistantMessage, { last, cut, counted, allowRepeats }: TurnOptions): TurnCall[] {
  let askedThisTurn = false;
  // Only answers after this turn count: a model may reuse a call id of an earlier turn.
  const open = new Set(openCalls(state.messages).map((call) => call.id));
  const errored = erroredAfter(state.messages, lastTurnIndex(state.messages));
  // Toolsets one of whose actions failed in this turn: their later actions are not run.
  const halted = new Set<string>();
  const planned: TurnCall[] = [];
  for (const call of message.toolCalls ?? []) {
    const toolset = specOf(call, state.tools)?.toolset?.name;
    const repeatCount = toolset === undefined && counted ? state.repeats.record(call) : 0;
    if (!open.has(call.id)) {
      if (call.name === ASK_TOOL) askedThisTurn = true;
      if (toolset !== undefined && errored.has(call.id)) halted.add(toolset);
      continue;
    }
    if (last && !state.finishTools.has(call.name)) continue;
    if (cut) {
      planned.push({ call, plan: { kind: "reply", text: MAX_TOKENS_CUT }, toolset });
      continue;
    }
    if (toolset !== undefined && halted.has(toolset)) {
      planned.push({ call, plan: { kind: "reply", text: haltText(toolset), notRun: true }, toolset });
      continue;
    }
    // The person answered a loop guard's ask "go on": the turn's calls run, repeats or not.
    const plan = planCall(call, { tools: state.tools, repeatCount: allowRepeats === true ? 0 : repeatCount, askedThisTurn, approvals: state.options.approvals ?? {} });
    if (plan.kind === "wait" && plan.asked.kind === "ask") askedThisTurn = true;
    if (plan.kind === "reply" && toolset !== undefined) halted.add(toolset);
    planned.push({ call, plan, toolset });
  }
  return planned;
}

/**
 * Starts every start + wait call of the turn, in call order, before any is waited on, so outside
 * jobs of one turn run at the same time. It stops at the first finish tool: calls after it run only
 * if it fails, so their jobs are not started for nothing (processTurn starts them then).
 */
async function startTurn(state: LoopState, step: number, planned: TurnCall[]): Promise<Map<string, StartValue>> {
  const started = new Map<string, StartValue>();
  for (const { call, plan } of planned) {
    if (plan.kind !== "run") continue;
    if (state.finishTools.has(call.name)) break;
    if (isStartWait(plan.spec)) started.set(call.id, await startStep(state, step, call, plan.spec, plan.input));
  }
  return started;
}

/**
 * Handles the calls of one assistant turn: first every start + wait call is started, then each
 * call is answered in order. Calls that wait for the person (ask, approval, client tools) are
 * passed over so the others run first; the first of them stops the loop. A hand-in of the typed
 * output ends the loop `done`; of another finish tool, `finish-tool`.
 */
async function processTurn(state: LoopState, step: number, message: AssistantMessage, turn: TurnOptions): Promise<Stop | undefined> {
  // The tool checks come before anything of the turn starts (guardrails/tool-guard.ts).
  const planned = await guardTurn(state, step, planTurn(state, message, turn));
  if (!Array.isArray(planned)) return tripped(planned);
  const started = await startTurn(state, step, planned);
  let waiting: Asked | undefined;
  for (const { call, plan, toolset } of planned) {
    if (plan.kind === "reply") {
      await answerWith(state, call, replyStep(state, step, call, plan.text, { notRun: plan.notRun === true, ...(toolset === undefined ? {} : { toolset }) }));
    } else if (plan.kind === "wait") {
      // The first call that waits stops the loop; the rest of its toolset's actions join its batch.
      waiting = joinWait(waiting, plan.asked);
    } else {
      const value = await answerWith(state, call, toolStep(state, step, call, plan.spec, plan.input, started.get(call.id)));
      state.guardrailsPassed?.delete(call.id);
      if (state.finishTools.has(call.name) && !value.isError) {
        // The calls after a hand-in never run: the checks they passed are told on their own.
        tellUnrun(state);
        const final = value.value !== undefined ? value.value : value.content;
        return { stoppedBy: call.name === state.outputTool ? "done" : "finish-tool", final, hasFinal: true };
      }
    }
  }
  if (waiting !== undefined) return { stoppedBy: "asked", asked: waiting };
  if (turn.last) return { stoppedBy: "steps", closeReason: LAST_STEP_REASON };
  return undefined;
}

export { isNearEmpty };

/**
 * A turn with no tool calls: the end, or not yet. A paused or compacting turn goes on with no user
 * turn. With finish tools, text is not a hand-in: the model is reminded once (with a typed output,
 * every time), and a last step that hands nothing in ends on `steps`. After tool work, a final
 * answer that is empty or short gets one more call (answer-follow-up.ts).
 */
function endOfTurn(state: LoopState, model: ModelStepValue): Stop | undefined {
  const paused = model.stopReason === "pause_turn" || model.stopReason === "compaction";
  if (paused && !model.last) return undefined;
  if (model.last) return { stoppedBy: paused || state.finishTools.size > 0 ? "steps" : "done" };
  if (state.finishTools.size > 0) {
    if (state.reminded && state.outputTool === undefined) return { stoppedBy: "done" };
    state.reminded = true;
    state.note = "reminder";
    return undefined;
  }
  // A provider with no other answer to give (the scripted one at its script's end) is not asked again.
  const followUp = model.stands === true ? undefined : followUpFor(state, model.message);
  if (followUp === undefined) return { stoppedBy: "done" };
  state.followedUp = true;
  state.note = followUp;
  return undefined;
}

/**
 * A model call; one that the provider refused as too long for the context window (before any
 * output) gets one compaction and one more try. A second refusal passes on.
 */
async function modelStep(state: LoopState, step: number): Promise<ModelStepValue> {
  try {
    return await runModelStep(state, step);
  } catch (error) {
    // A message interrupted the call: it goes into the history, and the call is made again with it.
    if (error instanceof Interrupted) {
      await takeAfterInterrupt(state, step, error.costUsd);
      // The messages it took failed an input check: no call is made again; drive stops (guardrails/input-guard.ts).
      if (state.inputTrip !== undefined) throw new InputTripped();
      return modelStep(state, step);
    }
    const mode = state.options.compaction?.mode;
    if (!(error instanceof ContextOverflowError) || mode === undefined || mode === "off") throw error;
    await compact(state, "overflow");
    return runModelStep(state, step);
  }
}

/** Compactions before model call `step`: one the caller asked for, then one the prompt's size calls for. */
async function compactBefore(state: LoopState, step: number): Promise<void> {
  const asked = requestedSummary(state.options, step);
  if (asked !== undefined) await compact(state, "request", asked.instructions);
  if (shouldCompact(state)) await compact(state, "threshold");
}

/**
 * What follows a model call: its calls, or the end of its turn. A tool-less call (the last step, a
 * final answer's one more call) answered with calls and no text at all (an endpoint that ignores
 * tool_choice "none") gets one more call with the tools left out of the request; whatever that
 * answers, the loop then ends as the tool-less call would have.
 */
async function afterModel(state: LoopState, step: number, model: ModelStepValue, followUp: boolean, retry: StoppedBy | undefined): Promise<Stop | undefined> {
  if (model.stopReason === "refusal") return { stoppedBy: "refusal" };
  if (retry !== undefined) return { stoppedBy: retry, closeReason: LAST_STEP_REASON };
  if ((model.message.toolCalls ?? []).length === 0) {
    const end = endOfTurn(state, model);
    // A turn of text that does not end the loop is checked too (the same text, step after step).
    if (end !== undefined || model.last) return end;
    return loopStop(state, await checkLoop(state, step, false));
  }
  const cut = model.stopReason === "max_tokens" || model.stopReason === "model_context_window_exceeded";
  // The last step's calls never run, and a cut answer's are answered at once: only other turns are checked.
  const checked = model.last || cut ? undefined : await checkLoop(state, step, true);
  const stopped = checked === undefined ? undefined : loopStop(state, checked);
  if (stopped !== undefined) return stopped;
  const stop = await processTurn(state, step, model.message, { last: model.last, cut, counted: true });
  if (stop?.closeReason !== LAST_STEP_REASON) return stop;
  // The calls of a tool-less call were not run. After a final answer's one more call the answer stands: done.
  const ending: StoppedBy = followUp ? "done" : "steps";
  if (!isBlank(textOf(model.message.content)) || openCalls(state.messages).length === 0) return { ...stop, stoppedBy: ending };
  closeOpenCalls(state, LAST_STEP_REASON);
  state.finalRetry = ending;
  // It asks for the answer again: after a follow-up, as an empty answer's; else with the last step's note.
  if (followUp) state.note = "recovery";
  return undefined;
}

/** What a loop guard's outcome does to the loop: it ends it, makes it wait, or leaves a note for the next request. */
function loopStop(state: LoopState, outcome: LoopOutcome): Stop | undefined {
  if (outcome.kind === "stop") return { stoppedBy: "loop" };
  if (outcome.kind === "ask") return { stoppedBy: "asked", asked: outcome.asked };
  if (outcome.kind === "warn") state.loopNote = outcome.note;
  return undefined;
}

/**
 * The turn the loop was given, when it belongs to the current question: the loop detectors are
 * fed it and, while it has calls open, check it (again: an answer to a loop guard's ask lets its
 * calls run), then are fed what follows it in the history.
 */
async function checkGivenTurn(state: LoopState, at: number): Promise<{ stop?: Stop; allowRepeats: boolean }> {
  if (state.loops === undefined || at < state.questionFrom) return { allowRepeats: false };
  state.loops.tracker.observe(state.messages[at]!);
  const outcome = openCalls(state.messages).length > 0 ? await checkLoop(state, 0, true) : { kind: "none" as const };
  for (let i = at + 1; i < state.messages.length; i++) state.loops.tracker.observe(state.messages[i]!);
  const stop = loopStop(state, outcome);
  return stop === undefined ? { allowRepeats: outcome.kind === "went-on" } : { stop, allowRepeats: false };
}

/** The run's spend after model call `step` and its tool calls (tool costs included), for progress views. */
function emitStepEnd(state: LoopState, step: number): void {
  state.emit({ type: "step", key: stepKeys.model(step), step, spentUsd: spentUsd(state) });
}

async function drive(state: LoopState): Promise<Stop> {
  // The question is checked before the first model call and before any tool of a given turn runs.
  const input = await checkInput(state);
  if (input !== undefined) return tripped(input);
  const at = lastTurnIndex(state.messages);
  if (at >= 0) {
    const given = await checkGivenTurn(state, at);
    if (given.stop !== undefined) return given.stop;
    const stop = await processTurn(state, 0, state.messages[at] as AssistantMessage, { last: false, cut: false, counted: at >= state.questionFrom, allowRepeats: given.allowRepeats });
    if (stop !== undefined) return stop;
  }
  for (;;) {
    const retry = state.finalRetry;
    // Only when earlier parts of the run used every step: the given turn is settled, nothing more is asked.
    if (stepsLeft(state) === 0 && retry === undefined) return { stoppedBy: "steps" };
    const step = state.steps + 1;
    await compactBefore(state, step);
    // The person's messages sent while the run worked: after this turn's tool results, before the call.
    await takeMessages(state, step);
    if (state.inputTrip !== undefined) return tripped(state.inputTrip);
    const followUp = state.note === "recovery" || state.note === "short";
    const model = await modelStep(state, step);
    state.steps = step;
    state.note = undefined;
    state.loopNote = undefined;
    state.finalRetry = undefined;
    state.lastInputTokens = model.usage.inputTokens;
    state.stepCosts = addUsd(state.stepCosts, model.costUsd);
    addUsage(state.usage, model.usage);
    append(state, model.message);
    let stop = await afterModel(state, step, model, followUp, retry);
    // A final answer with messages waiting is not the end: the next model call answers them.
    if (stop?.stoppedBy === "done" && stop.hasFinal !== true && stepsLeft(state) > 0 && messagesWaiting(state, step + 1)) stop = undefined;
    // The answer is checked before the run ends with it: a failed check retries or stops (guardrails/output-guard.ts).
    if (stop !== undefined) {
      const output = await checkOutput(state, step, stop);
      if (output.kind === "retry") stop = undefined;
      else if (output.kind === "stop") stop = tripped(output.trip);
    }
    // Calls a stop leaves open are answered before the step's end is told (a wait keeps its calls open).
    if (stop !== undefined && stop.stoppedBy !== "asked") closeOpenCalls(state, stop.closeReason ?? stop.stoppedBy);
    emitStepEnd(state, step);
    if (stop !== undefined) return stop;
  }
}

/** Answers every open call of the last assistant turn with "Not run: <reason>.". */
function closeOpenCalls(state: LoopState, reason: string): void {
  for (const call of openCalls(state.messages)) {
    const content = `Not run: ${reason}.`;
    append(state, { role: "tool", toolCallId: call.id, content, isError: true });
    state.emit({
      type: "tool-result",
      key: `closed/${state.steps}/${call.id}`,
      step: state.steps,
      callId: call.id,
      name: call.name,
      ok: false,
      summary: content,
      error: content,
      costUsd: 0,
      notRun: true,
    });
  }
}

export async function runToolLoop(options: RunToolLoopOptions): Promise<RunToolLoopResult> {
  const state = createLoopState(options);
  let stop: Stop;
  try {
    stop = await drive(state);
  } catch (error) {
    // A result not there yet suspends the run: no stop, the caller runs the loop again later.
    if (error instanceof ToolPending) throw error;
    if (error instanceof InputTripped && state.inputTrip !== undefined) stop = tripped(state.inputTrip);
    else if (error instanceof BudgetExhausted) stop = { stoppedBy: "budget" };
    else if (state.signal.aborted) stop = { stoppedBy: "cancel" };
    else {
      // The history stops where the run failed, open calls and all: a retry runs them.
      state.emit({ type: "stop", stoppedBy: "error", messages: state.messages, spentUsd: spentUsd(state), steps: state.steps, error });
      throw error;
    }
  }
  if (stop.stoppedBy !== "asked") closeOpenCalls(state, stop.closeReason ?? stop.stoppedBy);
  // A cancel in the middle of a model call: the text it had streamed is the model's last answer
  // (the person saw it; a continue goes on after it). Not a step: it was never stored or counted.
  if (stop.stoppedBy === "cancel" && state.cutText !== undefined) append(state, { role: "assistant", content: state.cutText });
  const lastTurn = state.messages[lastTurnIndex(state.messages)] as AssistantMessage | undefined;
  const result: RunToolLoopResult = {
    stoppedBy: stop.stoppedBy,
    // An answer a check stopped is not the run's answer (the history keeps it).
    finalText: lastTurn === undefined || stop.trip !== undefined ? "" : textOf(lastTurn.content),
    messages: state.messages,
    spentUsd: spentUsd(state),
    steps: state.steps,
    usage: state.usage,
  };
  if (stop.hasFinal === true) result.final = stop.final;
  if (stop.asked !== undefined) result.asked = stop.asked;
  if (stop.trip !== undefined) result.guardrail = stop.trip;
  // The answer that stands after its one more call is still empty or short.
  const short = stop.stoppedBy === "done" && state.followedUp && lastTurn !== undefined && (isNearEmpty(lastTurn) || isShort(state, lastTurn));
  if (short) result.shortAnswer = true;
  state.emit({ type: "stop", stoppedBy: result.stoppedBy, messages: result.messages, spentUsd: result.spentUsd, steps: result.steps, ...(short ? { shortAnswer: true as const } : {}), ...(stop.trip === undefined ? {} : { guardrail: stop.trip }) });
  return result;
}
