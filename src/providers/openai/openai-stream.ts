// Assembles one streamed Chat Completions answer from its chunks into the loop's AssistantMessage,
// usage and stop reason. Text arrives in `delta.content`; each tool call in `delta.tool_calls`
// pieces keyed by `index` (its id, type and name in the first piece, its arguments spread over
// the rest); `finish_reason` closes the choice; with stream_options.include_usage a last chunk
// with no choices carries the usage.
//
// Usage: `inputTokens` = prompt_tokens (the whole prompt, cached part included),
// `cachedReadTokens` = prompt_tokens_details.cached_tokens, `cachedWriteTokens` = 0 (OpenAI
// writes its cache by itself and charges nothing for it), `outputTokens` = completion_tokens
// (reasoning tokens included, billed as output). An endpoint that sends no usage gets an estimate
// (4 characters a token of the request and the answer), so its runs still count against budgets.
//
// Stop reasons: "stop" → end_turn ("tool_use" when the answer holds calls, as some compatible
// endpoints send "stop" with them), "tool_calls" → tool_use, "length" → max_tokens (a call whose
// arguments broke off gets {} and the loop answers it without running it), "content_filter" or a
// refusal → refusal (the run stops with stoppedBy "refusal").
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { AssistantMessage, StopReason, ToolCall, Usage } from "../../loop/types";
import { refusalText, reportedCost, StreamCutError, StreamProtocolError } from "../common/stream-errors";
import type { AssembledAnswer } from "../common/types";

export const CONTENT_FILTER_TEXT = "The model declined to answer (content filter).";

type PendingCall = { id: string; name: string; args: string };
type WireUsage = ChatCompletionChunk["usage"] & { cost?: unknown };

export type ChunkAssembler = {
  push(chunk: ChatCompletionChunk): void;
  /** The answer; throws StreamCutError when no finish_reason came. */
  finish(): AssembledAnswer;
  /**
   * The usage of what has streamed so far, for an answer cut off by an abort: the endpoint's usage
   * if its chunk came, else an estimate from the prompt's size and the text and calls streamed.
   */
  usageSoFar(): Usage;
};

/**
 * A call's input: its parsed arguments; {} when blank, or when the answer was cut off in them;
 * the arguments as written when they are not JSON (the loop answers that call with a schema
 * issue, so the model can correct itself).
 */
function inputOf(args: string, cut: boolean): unknown {
  if (args.trim().length === 0) return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return cut ? {} : args;
  }
}

function roughTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function stopReasonOf(finish: string, hasCalls: boolean, refused: boolean): StopReason {
  if (refused || finish === "content_filter") return "refusal";
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  return hasCalls ? "tool_use" : "end_turn";
}

/** `promptChars`: the request's size, for the estimate when an endpoint sends no usage. */
export function createChunkAssembler(onDelta?: (delta: string) => void, promptChars = 0): ChunkAssembler {
  let text = "";
  let refusal = "";
  const calls = new Map<number, PendingCall>();
  let finish: string | undefined;
  let usage: WireUsage | undefined;

  function pushCalls(deltas: NonNullable<ChatCompletionChunk.Choice.Delta["tool_calls"]>): void {
    for (const delta of deltas) {
      let call = calls.get(delta.index);
      if (call === undefined) calls.set(delta.index, (call = { id: "", name: "", args: "" }));
      if (delta.id) call.id = delta.id;
      if (delta.function?.name && call.name === "") call.name = delta.function.name;
      if (delta.function?.arguments) call.args += delta.function.arguments;
    }
  }

  function push(chunk: ChatCompletionChunk): void {
    if (chunk.usage) usage = chunk.usage;
    // One choice is asked for (n is never sent); another index would be a second answer.
    const choice = chunk.choices?.find((candidate) => candidate.index === 0);
    if (choice === undefined) return;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content.length > 0) {
      text += delta.content;
      onDelta?.(delta.content);
    }
    if (typeof delta.refusal === "string") refusal += delta.refusal;
    if (delta.tool_calls) pushCalls(delta.tool_calls);
    if (choice.finish_reason) finish = choice.finish_reason;
  }

  function usageOf(toolCalls: ToolCall[] | readonly PendingCall[]): { usage: Usage; cost?: number } {
    if (usage === undefined || usage === null) {
      const answerChars = text.length + refusal.length + JSON.stringify(toolCalls).length;
      return { usage: { inputTokens: roughTokens(promptChars), outputTokens: roughTokens(answerChars), cachedReadTokens: 0, cachedWriteTokens: 0 } };
    }
    const prompt = usage.prompt_tokens ?? 0;
    const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0);
    const result: { usage: Usage; cost?: number } = {
      usage: { inputTokens: prompt, outputTokens: usage.completion_tokens ?? 0, cachedReadTokens: cached, cachedWriteTokens: 0 },
    };
    // Gateways such as OpenRouter report what the call cost them.
    const cost = reportedCost(usage.cost);
    if (cost !== undefined) result.cost = cost;
    return result;
  }

  function finishAnswer(): AssembledAnswer {
    if (finish === undefined) throw new StreamCutError();
    const cut = finish === "length";
    const toolCalls: ToolCall[] = [...calls.keys()]
      .sort((a, b) => a - b)
      .map((index) => {
        const call = calls.get(index)!;
        if (call.name === "") throw new StreamProtocolError(`Tool call ${index} of the answer has no name.`);
        return { id: call.id || `call_${index}`, name: call.name, input: inputOf(call.args, cut) };
      });
    const refused = refusal.trim().length > 0;
    const stopReason = stopReasonOf(finish, toolCalls.length > 0, refused);
    let content = text;
    if (stopReason === "refusal" && text.trim().length === 0) {
      content = refused ? refusalText(refusal.trim()) : CONTENT_FILTER_TEXT;
    }
    const message: AssistantMessage = { role: "assistant", content };
    // A refusal ends the run: calls it may have begun are dropped, not run.
    if (toolCalls.length > 0 && stopReason !== "refusal") message.toolCalls = toolCalls;
    const { usage: counted, cost } = usageOf(toolCalls);
    const answer: AssembledAnswer = { message, usage: counted, stopReason };
    if (cost !== undefined) answer.reportedCostUsd = cost;
    return answer;
  }

  return { push, finish: finishAnswer, usageSoFar: () => usageOf([...calls.values()]).usage };
}
