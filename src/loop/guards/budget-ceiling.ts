// The budget is never exceeded: before a model call, the most that call could cost (its prompt at
// the input price, or the cache-write price when higher, plus max_tokens at the output price) is
// held against what the budget has left. max_tokens is lowered to fit; when not even a short answer
// fits, the run winds down instead of calling. The prompt is estimated from the request's
// characters at 3 a token, more than any tokenizer counts for text, so the estimate errs high.
import { textOf } from "../content";
import type { GenerateRequest, TokenPrices } from "../types";

/** The answer tokens of a request that names none (the provider's default, assumed). */
export const DEFAULT_ANSWER_TOKENS = 8_192;
/** Below this many answer tokens a call is not worth making: the run stops on its budget. */
export const MIN_ANSWER_TOKENS = 512;
const CHARS_PER_TOKEN_HIGH = 3;
const IMAGE_TOKENS_HIGH = 1_600;

/** An estimate of the request's prompt tokens that errs high. */
export function promptTokensCeiling(request: GenerateRequest): number {
  let chars = (request.system ?? "").length + JSON.stringify(request.tools).length;
  let images = 0;
  for (const message of request.messages) {
    chars += textOf(message.content).length + 8;
    if (typeof message.content !== "string") images += message.content.filter((part) => part.type === "image").length;
    if (message.role === "assistant") chars += JSON.stringify(message.toolCalls ?? []).length + JSON.stringify(message.providerBlocks ?? []).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN_HIGH) + images * IMAGE_TOKENS_HIGH;
}

/**
 * What an interrupted call's prompt cost when its provider had reported nothing yet (interrupted
 * before Anthropic's message_start, before an OpenAI stream's first chunk, before the scripted
 * model's delay): its input tokens, estimated high, at the input price. The vendor bills the prompt
 * once the request reached it, so an interrupt is never free.
 */
export function promptCostEstimate(request: GenerateRequest, prices: TokenPrices): number {
  return promptTokensCeiling(request) * prices.input;
}

export type Ceiling =
  /** The call fits as it is. */
  | { kind: "fits"; maxCostUsd: number }
  /** It fits with fewer answer tokens: make it the last call, with this max_tokens. */
  | { kind: "lower"; maxTokens: number; maxCostUsd: number }
  /** Not even a short answer fits. */
  | { kind: "stop" };

export function budgetCeiling(request: GenerateRequest, prices: TokenPrices, leftUsd: number): Ceiling {
  const inputUsd = promptTokensCeiling(request) * Math.max(prices.input, prices.cacheWrite);
  const answerTokens = request.maxTokens ?? DEFAULT_ANSWER_TOKENS;
  const maxCostUsd = inputUsd + answerTokens * prices.output;
  if (maxCostUsd <= leftUsd) return { kind: "fits", maxCostUsd };
  const fit = prices.output > 0 ? Math.floor((leftUsd - inputUsd) / prices.output) : answerTokens;
  if (fit < MIN_ANSWER_TOKENS) return { kind: "stop" };
  return { kind: "lower", maxTokens: Math.min(answerTokens, fit), maxCostUsd: inputUsd + Math.min(answerTokens, fit) * prices.output };
}
