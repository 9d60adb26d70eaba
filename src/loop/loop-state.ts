// The running state of one runToolLoop call. It is rebuilt from the journal on every replay;
// nothing here is stored anywhere else.
import { lastTurnIndex } from "./context/context-view";
import { outputTool, outputToolName } from "./tool-calls/output-tool";
import { questionStart } from "./guards/question-start";
import { createRepeatGuard, type RepeatGuard } from "./guards/repeat-guard";
import { createLoopTracker, type LoopTracker } from "./guards/loops/loop-tracker";
import { lowestLevels, type LoopCounts, type LoopGuards } from "./guards/loops/loop-policy";
import type { RequestView } from "./context/request-view";
import type { GuardrailLists, GuardrailPass, GuardrailTrip, PassedCall } from "./guardrails/guardrail-types";
import { providerToolDefinition, toToolDefinition } from "./tool-calls/tool-definition";
import { isToolsetCall } from "./tool-calls/toolset";
import { addUsd } from "../lib/money";
import type {
  AnyToolSpec,
  ChatMessage,
  LoopEvent,
  RunToolLoopOptions,
  StepWork,
  StoppedBy,
  ToolCall,
  ToolDefinition,
  Usage,
} from "./types";

export const DEFAULT_MAX_STEPS = 10;
/** A final answer after tool work shorter than this many characters gets one more call (minAnswerChars). */
export const DEFAULT_MIN_ANSWER_CHARS = 100;

/**
 * A note the next request ends with (never stored): a reminder to hand in, or, for a final answer
 * after tool work, a request for the whole answer (an empty one: "recovery"; a short one: "short"),
 * or why the answer failed an output check ("guardrail").
 */
export type Note = "reminder" | "recovery" | "short" | "guardrail";

export type LoopState = {
  options: RunToolLoopOptions;
  maxSteps: number;
  /** Model calls of the run before this call of the loop; they count toward maxSteps. */
  stepsBefore: number;
  tools: Map<string, AnyToolSpec>;
  definitions: ToolDefinition[];
  finishTools: Set<string>;
  /** The typed output's finish tool, if the loop has one: its hand-in ends the loop `done`. */
  outputTool?: string;
  messages: ChatMessage[];
  /** Index in `messages` of the user message the current question began with (question-start.ts). */
  questionFrom: number;
  repeats: RepeatGuard;
  /** The loop detectors of the current question and the run's levels (guards/loops/), when the run has loop guards. */
  loops?: { tracker: LoopTracker; guards: LoopGuards; lowest: LoopCounts };
  /** A loop guard's warning, which the next request ends with (never stored; its verdict step is). */
  loopNote?: string;
  /** Sum of the cost of every step of this run, replayed ones included. */
  stepCosts: number;
  usage: Usage;
  /** Model calls made by this run so far. */
  steps: number;
  /** The prompt tokens of the newest model call (compaction decides by them). */
  lastInputTokens?: number;
  /** `steps` when a compaction last ran (or was tried): none runs twice before the next model call. */
  compactedAt?: number;
  note?: Note;
  /** With note "guardrail": why the answer failed an output check (output-guard.ts). */
  guardrailNote?: string;
  /** An input check failed on messages taken while the run worked (incoming.ts): the loop stops with it. */
  inputTrip?: GuardrailTrip;
  /** The turn's calls that passed every pure tool check, by call id: their `tool-call` events carry the verdicts (tool-guard.ts). */
  guardrailsPassed?: Map<string, PassedCall>;
  /** The newest list of passes put on a call's event, frozen: the next call's is this very list when the same (guardrails/pass-list.ts). */
  passesShared?: readonly GuardrailPass[];
  /** The loop's checks by stage and tool, listed at their first use (guardrails/guardrail-step.ts). */
  guardrailLists?: GuardrailLists;
  /** Retries each output check has given the model so far (output-guard.ts). */
  outputRetries: Map<string, number>;
  reminded: boolean;
  /** A final answer got its one more call ("recovery" or "short"): the next one stands. */
  followedUp: boolean;
  /**
   * Set when a tool-less call was answered with calls and no text: the next call leaves the tools
   * out of the request, and whatever it answers the loop ends with this.
   */
  finalRetry?: StoppedBy;
  /** Takes of the person's messages made before model call `step` (incoming.ts): the next take's key counts on from them. */
  takes?: { step: number; count: number };
  /** What requests are built from, brought up to date as `messages` grows (request-view.ts). */
  view?: RequestView;
  /** The text a model call had streamed when a cancel cut it (its attempt's, after any reset): the history keeps it as the model's answer. */
  cutText?: string;
  signal: AbortSignal;
  emit: (event: LoopEvent) => void;
};

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0 };
}

export function addUsage(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  total.cachedReadTokens += more.cachedReadTokens;
  total.cachedWriteTokens += more.cachedWriteTokens;
  if (more.serverToolUse !== undefined) {
    const sum = total.serverToolUse ?? { webSearchRequests: 0, webFetchRequests: 0 };
    sum.webSearchRequests += more.serverToolUse.webSearchRequests;
    sum.webFetchRequests += more.serverToolUse.webFetchRequests;
    total.serverToolUse = sum;
  }
}

function checkOptions(options: RunToolLoopOptions, tools: Map<string, AnyToolSpec>): void {
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new Error("maxSteps must be a whole number of 1 or more.");
  const stepsBefore = options.stepsBefore ?? 0;
  if (!Number.isInteger(stepsBefore) || stepsBefore < 0) throw new Error("stepsBefore must be a whole number of 0 or more.");
  if (tools.size !== (options.tools ?? []).length) throw new Error("Tool names must be unique.");
  if (options.output !== undefined && tools.has(outputToolName(options.output))) throw new Error(`Tool ${outputToolName(options.output)} is the output's finish tool: its name must be unique.`);
  const minAnswerChars = options.minAnswerChars ?? DEFAULT_MIN_ANSWER_CHARS;
  if (!Number.isInteger(minAnswerChars) || minAnswerChars < 0) throw new Error("minAnswerChars must be a whole number of 0 or more.");
  for (const name of options.finishTools ?? []) {
    if (!tools.has(name)) throw new Error(`Finish tool ${name} is not in tools.`);
  }
  for (const spec of tools.values()) {
    const runnable = spec.run !== undefined || (spec.start !== undefined && spec.wait !== undefined);
    if (!runnable && spec.client !== true && spec.name !== "ask") {
      throw new Error(`Tool ${spec.name} needs run, or start and wait.`);
    }
  }
}

export function createLoopState(options: RunToolLoopOptions): LoopState {
  const tools = new Map((options.tools ?? []).map((spec) => [spec.name, spec]));
  checkOptions(options, tools);
  const finishTools = new Set(options.finishTools ?? []);
  let output: string | undefined;
  if (options.output !== undefined) {
    const spec = outputTool(options.output);
    tools.set(spec.name, spec);
    finishTools.add(spec.name);
    output = spec.name;
  }
  const messages = options.messages.slice();
  const questionFrom = options.questionStart ?? questionStart(messages);
  const repeats = createRepeatGuard();
  const lastAssistant = lastTurnIndex(messages);
  messages.forEach((message, i) => {
    // Only the current question's calls count. The last assistant turn's calls are counted when
    // that turn is processed, in order.
    if (i < questionFrom || message.role !== "assistant" || i === lastAssistant) return;
    message.toolCalls?.forEach((call) => isToolsetCall(call, tools) || repeats.record(call));
  });
  // The loop detectors see the question up to the turn the loop was given, which it checks (and
  // feeds on) when it processes that turn (run-tool-loop.ts).
  // With no client toolset among the tools every call counts: no look-up per call (isToolsetCall is false for all).
  const counted = [...tools.values()].some((spec) => spec.toolset !== undefined) ? (call: ToolCall) => !isToolsetCall(call, tools) : undefined;
  const loops = options.loopGuards === undefined ? undefined : { tracker: createLoopTracker(counted), guards: options.loopGuards, lowest: lowestLevels(options.loopGuards) };
  if (loops !== undefined) {
    const until = lastAssistant >= questionFrom ? lastAssistant : messages.length;
    for (let i = questionFrom; i < until; i++) loops.tracker.observe(messages[i]!);
  }
  const onStep = options.onStep;
  const state: LoopState = {
    options,
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    stepsBefore: options.stepsBefore ?? 0,
    tools,
    definitions: [...[...tools.values()].map(toToolDefinition), ...(options.providerTools ?? []).map(providerToolDefinition)],
    finishTools,
    messages,
    questionFrom,
    repeats,
    ...(loops === undefined ? {} : { loops }),
    stepCosts: 0,
    usage: emptyUsage(),
    steps: 0,
    reminded: false,
    followedUp: false,
    outputRetries: new Map(),
    signal: options.signal ?? new AbortController().signal,
    emit: onStep === undefined ? () => {} : onStep,
  };
  if (output !== undefined) state.outputTool = output;
  return state;
}

export function append(state: LoopState, message: ChatMessage): void {
  state.messages.push(message);
  state.loops?.tracker.observe(message);
}

/**
 * One journal step whose stored events also reach onStep as they happen (new steps only; a
 * replayed step emits nothing). A durable journal commits `events` with the value.
 */
export function journaled<T>(state: LoopState, key: string, work: StepWork<T>): Promise<T> {
  return state.options.step<T>(key, async (signal) => {
    // Cancel is checked when a step is new, never on a replay: a cancelled run still replays its
    // journal to the first step it has not done, and stops there.
    state.signal.throwIfAborted();
    const output = await work(signal);
    for (const event of output.events) state.emit(event);
    return output;
  });
}

/** Model calls this call of the loop may still make (0 when earlier ones used them all). */
export function stepsLeft(state: LoopState): number {
  return Math.max(0, state.maxSteps - state.stepsBefore - state.steps);
}

export function spentUsd(state: LoopState): number {
  return addUsd(state.options.budget?.spentUsd ?? 0, state.stepCosts);
}
