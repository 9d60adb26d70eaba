// The answer side of the fake: a scripted turn as the real chunk sequence of a streamed Chat
// Completion: a first chunk with the role, content deltas, tool-call deltas (id, type and name in
// the first piece of each call, its arguments spread over the rest), a last choice chunk with
// finish_reason and an empty delta, then — with stream_options.include_usage — a chunk with no
// choices that carries the usage. Every chunk before it has `usage: null`, as the real API sends.
import type { FakeTurn } from "./types";

export type Chunk = Record<string, unknown>;
export type PromptUsage = { prompt_tokens: number; cached_tokens: number };

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

type PlannedCall = { id: string; name: string; args: string };

function plannedCalls(turn: FakeTurn, id: string): PlannedCall[] {
  const calls = turn.toolCalls ?? [];
  return calls.map((call, i) => {
    const args = call.arguments ?? JSON.stringify(call.input ?? {});
    const cut = turn.cutLastToolCall === true && i === calls.length - 1;
    return { id: call.id ?? `call_${id}_${i}`, name: call.name, args: cut ? args.slice(0, Math.max(1, Math.floor(args.length / 2))) : args };
  });
}

export function finishReasonOf(turn: FakeTurn): string {
  if (turn.contentFilter === true) return "content_filter";
  if (turn.cutLastToolCall === true) return "length";
  return (turn.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
}

/** Roughly the tokenizer: four bytes of UTF-8 a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).length / 4);
}

export function completionTokens(turn: FakeTurn): number {
  if (turn.outputTokens !== undefined) return turn.outputTokens;
  return Math.max(1, estimateTokens(`${turn.text ?? ""}${turn.refusal ?? ""}${JSON.stringify(turn.toolCalls ?? [])}`));
}

export function usageOf(prompt: PromptUsage, turn: FakeTurn): Record<string, unknown> {
  const completion = completionTokens(turn);
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt.prompt_tokens,
    completion_tokens: completion,
    total_tokens: prompt.prompt_tokens + completion,
    prompt_tokens_details: { cached_tokens: prompt.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  if (turn.cost !== undefined) usage.cost = turn.cost;
  return usage;
}

/** The chunks of a streamed answer, in the real API's order. */
export function answerChunks(turn: FakeTurn, model: string, id: string, prompt: PromptUsage, asked: boolean): Chunk[] {
  // An endpoint that ignores stream_options (turn.noUsage) sends no usage at all.
  const includeUsage = asked && turn.noUsage !== true;
  const created = 1_760_000_000;
  const shell = (choices: unknown[], usage: unknown = null): Chunk => ({
    id: `chatcmpl-${id}`,
    object: "chat.completion.chunk",
    created,
    model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices,
    ...(includeUsage ? { usage } : {}),
  });
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });
  const out: Chunk[] = [shell([choice({ role: "assistant", content: "", refusal: null })])];
  for (const part of chunks(turn.text ?? "", turn.chunk ?? 8)) out.push(shell([choice({ content: part })]));
  for (const part of chunks(turn.refusal ?? "", turn.chunk ?? 8)) out.push(shell([choice({ refusal: part })]));
  plannedCalls(turn, id).forEach((call, index) => {
    out.push(shell([choice({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })]));
    for (const part of chunks(call.args, turn.jsonChunk ?? 12)) out.push(shell([choice({ tool_calls: [{ index, function: { arguments: part } }] })]));
  });
  out.push(shell([choice({}, finishReasonOf(turn))]));
  if (includeUsage) out.push(shell([], usageOf(prompt, turn)));
  return out;
}
