// Tool calls as journal steps: run, start + wait, and the calls the loop answers itself.
import { assertBudget, spentNow } from "../guards/budget";
import { summarize } from "../content";
import { journaled, type LoopState } from "../loop-state";
import { stepKeys } from "../step-keys";
import { ToolPending } from "./tool-pending";
import type { AnyToolSpec, Content, LoopEvent, StepOutput, ToolCall, ToolOutput, ToolResultEvent } from "../types";
import { addUsd, usd } from "../../lib/money";

/** What the journal stores for a tool call (and for a call the loop answered itself). */
export type ToolStepValue = { content: Content; isError: boolean; costUsd: number; value?: unknown };

/** What the journal stores for a start: the tool's handle to wait on. */
export type StartValue = { handle: unknown; costUsd: number };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function normalize(output: ToolOutput | string): ToolStepValue {
  if (typeof output === "string") return { content: output, isError: false, costUsd: 0 };
  const value: ToolStepValue = { content: output.content, isError: output.isError === true, costUsd: usd(output.costUsd ?? 0) };
  if (output.value !== undefined) value.value = output.value;
  return value;
}

function resultEvent(key: string, step: number, call: ToolCall, value: ToolStepValue): ToolResultEvent {
  const summary = summarize(value.content);
  const event: ToolResultEvent = {
    type: "tool-result",
    key,
    step,
    callId: call.id,
    name: call.name,
    ok: !value.isError,
    summary,
    costUsd: value.costUsd,
  };
  if (value.isError) event.error = summary;
  return event;
}

function output(key: string, step: number, call: ToolCall, value: ToolStepValue): StepOutput<ToolStepValue> {
  return { value, costUsd: value.costUsd, events: [resultEvent(key, step, call, value)] };
}

export type ReplyOptions = {
  /** The call was never run (a toolset's action after a failed one): no tool-call event, and its result says so. */
  notRun?: boolean;
  /** The call's client toolset, echoed in its events. */
  toolset?: string;
};

/** A call the loop answers itself: one text step at cost 0. */
export function replyStep(state: LoopState, step: number, call: ToolCall, text: string, options: ReplyOptions = {}): Promise<ToolStepValue> {
  const key = stepKeys.reply(step, call.id);
  const toolset = options.toolset === undefined ? {} : { toolset: options.toolset };
  return journaled<ToolStepValue>(state, key, async () => {
    if (options.notRun !== true) state.emit({ type: "tool-call", key, step, callId: call.id, name: call.name, input: call.input, ...toolset });
    const done = output(key, step, call, { content: text, isError: true, costUsd: 0 });
    Object.assign(done.events[0]!, toolset, options.notRun === true ? { notRun: true } : {});
    return done;
  });
}

async function guarded(
  state: LoopState,
  run: () => Promise<ToolOutput | string>,
  signal: AbortSignal,
): Promise<ToolStepValue> {
  try {
    return normalize(await run());
  } catch (error) {
    // A result that is not there yet is no failure: the loop is suspended, nothing is stored.
    if (error instanceof ToolPending) throw error;
    // A cancelled call and toolErrors "stop" end the loop: the error passes on, nothing is stored.
    if (signal.aborted || state.signal.aborted || state.options.toolErrors === "stop") throw error;
    return { content: `Tool error: ${errorMessage(error)}`, isError: true, costUsd: 0 };
  }
}

async function checkBudget(state: LoopState): Promise<void> {
  assertBudget(state.options.budget, await spentNow(state.options.budget, state.stepCosts));
}

/** True for a tool that runs as start + wait rather than run. */
export function isStartWait(spec: AnyToolSpec): boolean {
  return spec.start !== undefined && spec.wait !== undefined;
}

/** The call's `tool-call` event, with the pure checks it passed (guardrails/tool-guard.ts). */
function announce(state: LoopState, key: string, step: number, call: ToolCall, input: unknown): void {
  const passed = state.guardrailsPassed?.get(call.id)?.guardrailsPassed;
  const event: Extract<LoopEvent, { type: "tool-call" }> = { type: "tool-call", key, step, callId: call.id, name: call.name, input };
  if (passed !== undefined) event.guardrailsPassed = passed;
  state.emit(event);
}

/** The journaled start of a start + wait call; its cost counts once, here (a replay reads it back). */
export async function startStep(state: LoopState, step: number, call: ToolCall, spec: AnyToolSpec, input: unknown): Promise<StartValue> {
  const start = spec.start!.bind(spec);
  const startKey = stepKeys.start(step, call.id);
  const started = await state.options.step<StartValue>(startKey, async (signal) => {
    state.signal.throwIfAborted();
    await checkBudget(state);
    announce(state, startKey, step, call, input);
    const { handle, costUsd = 0 } = await start(input, { signal, callId: call.id, key: startKey });
    return { value: { handle, costUsd: usd(costUsd) }, costUsd: usd(costUsd), events: [] };
  });
  state.stepCosts = addUsd(state.stepCosts, started.costUsd);
  return started;
}

/**
 * Runs a checked call: `run`, or `start` then `wait` (a restart after start only waits). `started`
 * is the call's start when the turn made it already (see processTurn), so it is not counted twice.
 */
export async function toolStep(
  state: LoopState,
  step: number,
  call: ToolCall,
  spec: AnyToolSpec,
  input: unknown,
  started?: StartValue,
): Promise<ToolStepValue> {
  if (isStartWait(spec)) {
    const wait = spec.wait!.bind(spec);
    const { handle } = started ?? (await startStep(state, step, call, spec, input));
    const waitKey = stepKeys.wait(step, call.id);
    return journaled<ToolStepValue>(state, waitKey, async (signal) => {
      const value = await guarded(state, () => wait(handle, { signal, callId: call.id, key: waitKey }), signal);
      return output(waitKey, step, call, value);
    });
  }
  const key = stepKeys.tool(step, call.id);
  const run = spec.run!.bind(spec);
  return journaled<ToolStepValue>(state, key, async (signal) => {
    await checkBudget(state);
    announce(state, key, step, call, input);
    const value = await guarded(state, () => run(input, { signal, callId: call.id, key }), signal);
    return output(key, step, call, value);
  });
}
