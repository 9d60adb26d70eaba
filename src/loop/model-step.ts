// One model call as one journal step: the budget check, the request, generate, and the stored value.
import { assertBudget, reachedFinishAt, spentNow } from "./budget";
import { requestMessages } from "./cache-marks";
import { textOf } from "./content";
import { defaultFinishNote, offeredTools } from "./last-step";
import { journaled, spentUsd, type LoopState } from "./loop-state";
import { stepKeys } from "./step-keys";
import type { AssistantMessage, ChatMessage, GenerateRequest, StopReason, Usage } from "./types";

/** What the journal stores for a model call. */
export type ModelStepValue = {
  message: AssistantMessage;
  usage: Usage;
  costUsd: number;
  stopReason: StopReason;
  /** This call was the last one: no callable tools were offered. */
  last: boolean;
};

export function buildRequest(state: LoopState, step: number, last: boolean): GenerateRequest {
  const { options } = state;
  const cache = options.cache ?? "auto";
  // A copy: requestMessages may hand back the history itself when nothing needs changing.
  const messages: ChatMessage[] = [
    // Marks look ahead over the model calls left to this call of the loop.
    ...requestMessages(state.messages, { cache, keepImages: options.keepImages, maxSteps: state.maxSteps - state.stepsBefore, step }),
  ];
  if (last) messages.push({ role: "user", content: options.finishNote ?? defaultFinishNote([...state.finishTools]) });
  const request: GenerateRequest = {
    prompt: "",
    model: options.model,
    messages,
    ...offeredTools(state.definitions, state.finishTools, last),
    cacheSystem: cache !== "none",
  };
  if (options.system !== undefined) request.system = options.system;
  if (options.maxTokens !== undefined) request.maxTokens = options.maxTokens;
  if (options.reasoning !== undefined) request.params = { reasoning: options.reasoning };
  return request;
}

export function runModelStep(state: LoopState, step: number): Promise<ModelStepValue> {
  const key = stepKeys.model(step);
  const { options } = state;
  return journaled<ModelStepValue>(state, key, async (signal) => {
    const spent = await spentNow(options.budget, state.stepCosts);
    assertBudget(options.budget, spent);
    const last = state.stepsBefore + step >= state.maxSteps || state.repeats.doomLoop || reachedFinishAt(options.budget, spent);
    state.emit({ type: "step-start", key, step, last });
    const request = buildRequest(state, step, last);
    const result = await options.generate(request, {
      signal,
      onDelta: (delta) => state.emit({ type: "text", step, delta }),
      onTextVoid: () => state.emit({ type: "text-reset", step }),
    });
    const value: ModelStepValue = {
      message: result.message,
      usage: result.usage,
      costUsd: result.costUsd,
      stopReason: result.stopReason,
      last,
    };
    const event = {
      type: "model" as const,
      key,
      step,
      text: textOf(result.message.content),
      toolCalls: result.message.toolCalls ?? [],
      usage: result.usage,
      costUsd: result.costUsd,
      spentUsd: spentUsd(state) + result.costUsd,
      stopReason: result.stopReason,
    };
    return { value, costUsd: result.costUsd, events: [event] };
  });
}
