// One model call as one journal step: the budget check, the request, generate, and the stored value.
import { answerChars, RECOVERY_NOTE, shortAnswerNote } from "./guards/answer-follow-up";
import { assertBudget, BudgetExhausted, reachedFinishAt, spentNow } from "./guards/budget";
import { budgetCeiling, promptCostEstimate } from "./guards/budget-ceiling";
import { requestMessagesCopy } from "./context/cache-marks";
import { textLength, textOf } from "./content";
import { requestedNativeCompaction } from "./context/compaction-requests";
import { contextView, estimateTokens, lastTurnIndex } from "./context/context-view";
import { defaultFinishNote, offeredTools } from "./guards/last-step";
import { journaled, spentUsd, type LoopState } from "./loop-state";
import { Interrupted } from "./errors";
import { stepKeys } from "./step-keys";
import { updateRequestView } from "./context/request-view";
import { knowTextChars } from "./context/request-text";
import type { AssistantMessage, ChatMessage, CompactionEvent, GenerateRequest, StopReason, StoredLoopEvent, Usage } from "./types";
import { addUsd } from "../lib/money";

/** What the journal stores for a model call. */
export type ModelStepValue = {
  message: AssistantMessage;
  usage: Usage;
  costUsd: number;
  stopReason: StopReason;
  /** No tool but the finish tools could be called: the last step, or a final answer's one more call (answer-follow-up.ts). */
  last: boolean;
  /** The provider had no other answer to give (GenerateResult.stands): a final answer gets no one more call. */
  stands?: true;
};

export function reminderNote(finishTools: string[]): string {
  return `You answered without handing in your result. Call ${finishTools.join(" or ")} now to hand it in.`;
}

export { RECOVERY_NOTE };

/** This call is the one more call a final answer got (answer-follow-up.ts): tool-less, with its own note instead of the finish note. */
function isFollowUp(state: LoopState): boolean {
  return state.note === "recovery" || state.note === "short";
}

/** Notes a request ends with; they are never part of the history. */
function notesFor(state: LoopState, last: boolean): ChatMessage[] {
  const notes: ChatMessage[] = [];
  const { options } = state;
  if (state.loopNote !== undefined) notes.push({ role: "user", content: state.loopNote });
  if (state.note === "reminder") notes.push({ role: "user", content: reminderNote([...state.finishTools]) });
  if (state.note === "recovery") notes.push({ role: "user", content: RECOVERY_NOTE });
  if (state.note === "guardrail" && state.guardrailNote !== undefined) notes.push({ role: "user", content: state.guardrailNote });
  if (state.note === "short") notes.push({ role: "user", content: shortAnswerNote(answerChars(state.messages[lastTurnIndex(state.messages)] as AssistantMessage | undefined)) });
  else if (last && !isFollowUp(state)) notes.push({ role: "user", content: options.finishNote ?? defaultFinishNote([...state.finishTools]) });
  return notes;
}

/** The tools of this request: as offeredTools says, or none at all after a tool-less call was answered with calls and no text. */
function toolsOf(state: LoopState, last: boolean): Pick<GenerateRequest, "tools" | "toolChoice"> {
  if (state.finalRetry !== undefined) return { tools: [], toolChoice: "auto" };
  return offeredTools(state.definitions, state.finishTools, last);
}

export function buildRequest(state: LoopState, step: number, last: boolean): GenerateRequest {
  const { options } = state;
  const cache = options.cache ?? "auto";
  // After a compaction a request starts at the summary (the history keeps every turn); long tool
  // results are cut. Kept up to date as the history grows (request-view.ts).
  const view = (state.view = updateRequestView(state.view, state.messages, options.maxToolResultTokens));
  // Marks look ahead over the model calls left to this call of the loop. A new array: the view is never handed out.
  const messages = requestMessagesCopy(
    view.messages,
    { cache, keepImages: options.keepImages, imagePruning: options.imagePruning ?? "exact", maxSteps: state.maxSteps - state.stepsBefore, step },
    view.callerMarks,
  );
  const notes = notesFor(state, last);
  messages.push(...notes);
  const request: GenerateRequest = {
    prompt: "",
    model: options.model,
    messages,
    ...toolsOf(state, last),
    cacheSystem: cache !== "none",
    call: view.turns + 1,
  };
  // Without keepImages the request's text is the view's (cache marks change no text) and its notes'.
  if (options.keepImages === undefined) knowTextChars(request, notes.reduce((sum, note) => sum + textLength(note.content), view.chars));
  if (options.system !== undefined) request.system = options.system;
  if (options.maxTokens !== undefined) request.maxTokens = options.maxTokens;
  if (options.reasoning !== undefined) request.params = { reasoning: options.reasoning };
  // From the whole history, not the compacted view: a compaction does not lose the container.
  if (view.container !== undefined) request.container = { ...view.container };
  const compaction = options.compaction;
  if (compaction?.mode === "native") {
    // A compaction the caller asked for before this call: the provider compacts at once (compaction-requests.ts).
    const asked = requestedNativeCompaction(options, step);
    const atTokens = asked?.atTokens ?? compaction.atTokens;
    const instructions = asked === undefined ? compaction.instructions : (asked.instructions ?? compaction.instructions);
    request.compaction = instructions === undefined ? { atTokens } : { atTokens, instructions };
  }
  return request;
}

/**
 * The request of this step, held against the budget when the provider has prices: answer tokens
 * lowered to fit (the call is then the last), or the run stops when not even a short answer fits.
 */
function affordableRequest(state: LoopState, step: number, last: boolean, spent: number): { request: GenerateRequest; last: boolean } {
  const { options } = state;
  let request = buildRequest(state, step, last);
  if (options.prices === undefined || options.budget === undefined || !Number.isFinite(options.budget.usd)) return { request, last };
  const left = options.budget.usd - spent;
  let ceiling = budgetCeiling(request, options.prices, left);
  if (ceiling.kind === "lower" && !last) {
    last = true;
    request = buildRequest(state, step, last);
    ceiling = budgetCeiling(request, options.prices, left);
  }
  if (ceiling.kind === "stop") throw new BudgetExhausted(spent, options.budget.usd);
  if (ceiling.kind === "lower") request.maxTokens = ceiling.maxTokens;
  return { request, last };
}

export function runModelStep(state: LoopState, step: number): Promise<ModelStepValue> {
  const key = stepKeys.model(step);
  const { options } = state;
  return journaled<ModelStepValue>(state, key, async (signal) => {
    const spent = await spentNow(options.budget, state.stepCosts);
    assertBudget(options.budget, spent);
    // A follow-up call (answer-follow-up.ts) and a call with the tools left out are tool-less like the last step.
    const toolless = isFollowUp(state) || state.finalRetry !== undefined;
    const wanted = toolless || state.stepsBefore + step >= state.maxSteps || state.repeats.doomLoop || reachedFinishAt(options.budget, spent);
    const { request, last } = affordableRequest(state, step, wanted, spent);
    state.emit({ type: "step-start", key, step, last });
    let partialCostUsd = 0;
    let streamed = "";
    const result = await options
      .generate(request, {
        signal,
        onDelta: (delta) => {
          streamed += delta;
          state.emit({ type: "text", step, delta });
        },
        onTextVoid: () => {
          streamed = "";
          state.emit({ type: "text-reset", step });
        },
        onPartialCost: (costUsd) => (partialCostUsd = costUsd),
      })
      .catch((error: unknown) => {
        // A message interrupted this call (not a cancel): its answer is dropped, its reported cost kept.
        // Where the provider reported no usage yet, the prompt's input tokens are estimated: an interrupt is never free.
        if (signal.reason instanceof Interrupted && !state.signal.aborted) throw new Interrupted(partialCostUsd > 0 || options.prices === undefined ? partialCostUsd : promptCostEstimate(request, options.prices));
        // A cancel: what the person saw of this answer stays (the loop ends with it, run-tool-loop.ts).
        if (state.signal.aborted && streamed !== "") state.cutText = streamed;
        throw error;
      });
    const value: ModelStepValue = {
      message: result.message,
      usage: result.usage,
      costUsd: result.costUsd,
      stopReason: result.stopReason,
      last,
      ...(result.stands === true ? { stands: true as const } : {}),
    };
    const events: StoredLoopEvent[] = [
      {
        type: "model",
        key,
        step,
        text: textOf(result.message.content),
        toolCalls: result.message.toolCalls ?? [],
        usage: result.usage,
        costUsd: result.costUsd,
        spentUsd: addUsd(spentUsd(state), result.costUsd),
        stopReason: result.stopReason,
        ...(result.providerToolCalls === undefined || result.providerToolCalls.length === 0 ? {} : { providerToolCalls: result.providerToolCalls }),
      },
    ];
    if (result.stopReason === "compaction") {
      const reason = requestedNativeCompaction(options, step) === undefined ? "threshold" : "request";
      events.push(nativeCompactionEvent(state, key, step, request, result.message, result.usage, reason));
    }
    return { value, costUsd: result.costUsd, events };
  });
}

/** The provider compacted the history in this call: tokens of its prompt, and an estimate of the prompt after. */
function nativeCompactionEvent(
  state: LoopState,
  key: string,
  step: number,
  request: GenerateRequest,
  message: AssistantMessage,
  usage: Usage,
  reason: CompactionEvent["reason"],
): CompactionEvent {
  const tokensBefore = Math.max(usage.inputTokens, estimateTokens(request.messages));
  const tokensAfter = estimateTokens(contextView([...state.messages, message]));
  return { type: "compaction", key, step, mode: "native", reason, tokensBefore, tokensAfter };
}
