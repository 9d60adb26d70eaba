// runToolLoop: a tool-calling conversation run to its end, every model call and tool call one
// step of the caller's journal. The loop keeps no state of its own: a restart with the
// same journal replays every finished step and runs only what is new.
import { BudgetExhausted } from "./budget";
import { compact, shouldCompact } from "./compaction";
import { textOf } from "./content";
import { lastTurnIndex } from "./context-view";
import { ContextOverflowError } from "./errors";
import { openCalls } from "./history";
import { addUsage, append, createLoopState, spentUsd, stepsLeft, type LoopState } from "./loop-state";
import { runModelStep, type ModelStepValue } from "./model-step";
import { ASK_TOOL, planCall, type CallPlan } from "./plan-call";
import { isStartWait, replyStep, startStep, toolStep, type StartValue, type ToolStepValue } from "./tool-step";
import { ToolPending } from "./tool-pending";
import { erroredAfter, haltText, joinWait, specOf } from "./toolset";
import type { AssistantMessage, Asked, RunToolLoopOptions, RunToolLoopResult, StoppedBy, ToolCall } from "./types";

type Stop = { stoppedBy: StoppedBy; asked?: Asked; final?: unknown; hasFinal?: boolean };

const MAX_TOKENS_CUT =
  "Not run: the answer reached max_tokens before this call was complete. Make the call again, shorter.";

function toolMessage(call: ToolCall, value: ToolStepValue) {
  return { role: "tool" as const, toolCallId: call.id, content: value.content, ...(value.isError ? { isError: true } : {}) };
}

async function answerWith(state: LoopState, call: ToolCall, value: Promise<ToolStepValue>): Promise<ToolStepValue> {
  const settled = await value;
  state.stepCosts += settled.costUsd;
  append(state, toolMessage(call, settled));
  return settled;
}

/** A call of the turn, what the loop does with it, and the client toolset it goes to (if any). */
type TurnCall = { call: ToolCall; plan: CallPlan; toolset?: string };

/**
 * What the loop does with each open call of a turn, in call order: a pure pass (replays plan the
 * same). Calls answered after the turn are passed over, and on the last step only finish tools
 * are planned (the others are answered "Not run: steps." when the loop stops).
 */
function planTurn(state: LoopState, message: AssistantMessage, last: boolean, cut: boolean): TurnCall[] {
  let askedThisTurn = false;
  // Only answers after this turn count: a model may reuse a call id of an earlier turn.
  const open = new Set(openCalls(state.messages).map((call) => call.id));
  const errored = erroredAfter(state.messages, lastTurnIndex(state.messages));
  // Toolsets one of whose actions failed in this turn: their later actions are not run.
  const halted = new Set<string>();
  const planned: TurnCall[] = [];
  for (const call of message.toolCalls ?? []) {
    const toolset = specOf(call, state.tools)?.toolset?.name;
    const repeatCount = toolset === undefined ? state.repeats.record(call) : 0;
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
    const plan = planCall(call, { tools: state.tools, repeatCount, askedThisTurn, approvals: state.options.approvals ?? {} });
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
 * passed over so the others run first; the first of them stops the loop.
 */
async function processTurn(state: LoopState, step: number, message: AssistantMessage, last: boolean, cut: boolean): Promise<Stop | undefined> {
  const planned = planTurn(state, message, last, cut);
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
      if (state.finishTools.has(call.name) && !value.isError) {
        return { stoppedBy: "finish-tool", final: value.value !== undefined ? value.value : value.content, hasFinal: true };
      }
    }
  }
  if (waiting !== undefined) return { stoppedBy: "asked", asked: waiting };
  if (last) return { stoppedBy: "steps" };
  return undefined;
}

/** No word at all, or a stub that announces an answer that never came ("Here they are:"). */
export function isNearEmpty(message: AssistantMessage): boolean {
  const text = textOf(message.content).trim();
  return !/[\p{L}\p{N}]/u.test(text) || (text.length < 100 && text.endsWith(":"));
}

/**
 * A turn with no tool calls: the end, or not yet. A paused or compacting turn goes on with no user
 * turn. With finish tools, text is not a hand-in: the model is reminded once, and a last step that
 * hands nothing in ends on `steps`. After tool work, an empty answer gets one turn to answer.
 */
function endOfTurn(state: LoopState, model: ModelStepValue): Stop | undefined {
  const paused = model.stopReason === "pause_turn" || model.stopReason === "compaction";
  if (paused && !model.last) return undefined;
  if (model.last) return { stoppedBy: paused || state.finishTools.size > 0 ? "steps" : "done" };
  if (state.finishTools.size > 0) {
    if (state.reminded) return { stoppedBy: "done" };
    state.reminded = true;
    state.note = "reminder";
    return undefined;
  }
  if (!state.recovered && isNearEmpty(model.message) && state.messages.some((message) => message.role === "tool")) {
    state.recovered = true;
    state.note = "recovery";
    return undefined;
  }
  return { stoppedBy: "done" };
}

/**
 * A model call; one that the provider refused as too long for the context window (before any
 * output) gets one compaction and one more try. A second refusal passes on.
 */
async function modelStep(state: LoopState, step: number): Promise<ModelStepValue> {
  try {
    return await runModelStep(state, step);
  } catch (error) {
    const mode = state.options.compaction?.mode;
    if (!(error instanceof ContextOverflowError) || mode === undefined || mode === "off") throw error;
    await compact(state, "overflow");
    return runModelStep(state, step);
  }
}

async function drive(state: LoopState): Promise<Stop> {
  const at = lastTurnIndex(state.messages);
  if (at >= 0) {
    const stop = await processTurn(state, 0, state.messages[at] as AssistantMessage, false, false);
    if (stop !== undefined) return stop;
  }
  for (;;) {
    // Only when earlier parts of the run used every step: the given turn is settled, nothing more is asked.
    if (stepsLeft(state) === 0) return { stoppedBy: "steps" };
    if (shouldCompact(state)) await compact(state, "threshold");
    const step = state.steps + 1;
    const model = await modelStep(state, step);
    state.steps = step;
    state.note = undefined;
    state.lastInputTokens = model.usage.inputTokens;
    state.stepCosts += model.costUsd;
    addUsage(state.usage, model.usage);
    append(state, model.message);
    if (model.stopReason === "refusal") return { stoppedBy: "refusal" };
    const calls = model.message.toolCalls ?? [];
    if (calls.length === 0) {
      const stop = endOfTurn(state, model);
      if (stop !== undefined) return stop;
      continue;
    }
    const cut = model.stopReason === "max_tokens" || model.stopReason === "model_context_window_exceeded";
    const stop = await processTurn(state, step, model.message, model.last, cut);
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
    if (error instanceof BudgetExhausted) stop = { stoppedBy: "budget" };
    else if (state.signal.aborted) stop = { stoppedBy: "cancel" };
    else {
      // The history stops where the run failed, open calls and all: a retry runs them.
      state.emit({ type: "stop", stoppedBy: "error", messages: state.messages, spentUsd: spentUsd(state), steps: state.steps, error });
      throw error;
    }
  }
  if (stop.stoppedBy !== "asked") closeOpenCalls(state, stop.stoppedBy);
  const lastTurn = state.messages[lastTurnIndex(state.messages)];
  const result: RunToolLoopResult = {
    stoppedBy: stop.stoppedBy,
    finalText: lastTurn === undefined ? "" : textOf(lastTurn.content),
    messages: state.messages,
    spentUsd: spentUsd(state),
    steps: state.steps,
    usage: state.usage,
  };
  if (stop.hasFinal === true) result.final = stop.final;
  if (stop.asked !== undefined) result.asked = stop.asked;
  state.emit({ type: "stop", stoppedBy: result.stoppedBy, messages: result.messages, spentUsd: result.spentUsd, steps: result.steps });
  return result;
}
