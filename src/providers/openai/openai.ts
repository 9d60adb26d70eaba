// The openai provider: one model step = one streamed POST /chat/completions through the official
// SDK, against OpenAI or any OpenAI-compatible endpoint (baseURL), retried here and nowhere else
// (maxRetries: 0 on the client), before anything is stored. It has no compaction of its own: the
// loop's summary mode keeps long runs inside the context window.
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { GenerateContext, GenerateRequest, GenerateResult } from "../../loop/types";
import { openAIContextWindowOf } from "../common/context-windows";
import { ProviderError } from "../common/errors";
import { callPrice, tokenPricesIn } from "../common/prices/model-prices";
import { describeOpenAIFailure, isOpenAIContextOverflow, openAIProviderError, withoutKey } from "./openai-errors";
import { OPENAI_PRICES } from "../common/prices/openai-prices";
import { toOpenAIParams } from "./openai-request";
import { createChunkAssembler } from "./openai-stream";
import { costOf, type Price } from "../common/prices/prices";
import { imageLoader } from "../common/request-images";
import { retryDepsOf, withRetries, type FailureReading } from "../common/with-retries";
import type { Provider, VendorProviderOptions } from "../common/types";
import { usd } from "../../lib/money";

/** OpenAI's own endpoint, sent explicitly: the SDK would otherwise read OPENAI_BASE_URL from process.env. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export type OpenAIProviderOptions = VendorProviderOptions & {
  /** Defaults to https://api.openai.com/v1; any OpenAI-compatible endpoint (Workers AI, AI Gateway, OpenRouter, Groq, Ollama, vLLM, …). */
  baseURL?: string;
};

/** How OpenAI's failures are read, with `apiKey` taken out of every failure's message (see withoutKey). */
function openAIFailures(apiKey: string): FailureReading {
  return { vendor: "OpenAI", describe: (error) => withoutKey(describeOpenAIFailure(error), apiKey), isContextOverflow: isOpenAIContextOverflow, endingError: openAIProviderError };
}

export const MISSING_OPENAI_KEY_MESSAGE = "The openai provider needs OPENAI_API_KEY (wrangler secret put OPENAI_API_KEY).";

/** The request's size in characters, for a usage estimate when an endpoint reports none. */
function promptChars(body: ChatCompletionCreateParamsStreaming): number {
  return JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
}

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const { apiKey } = options;
  const retry = retryDepsOf(options);
  const prices = options.prices ?? OPENAI_PRICES;
  const loadImages = imageLoader(options.images);
  const failures = openAIFailures(apiKey ?? "");
  // One client per provider; with no key none is made. Every setting the SDK would look up in
  // process.env (which holds the Worker's settings under nodejs_compat) is given here instead.
  const client =
    apiKey === undefined || apiKey.length === 0
      ? undefined
      : new OpenAI({
          apiKey,
          baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
          organization: null,
          project: null,
          adminAPIKey: null,
          webhookSecret: null,
          maxRetries: 0,
          logLevel: "off",
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });

  async function attempt(openai: OpenAI, body: ChatCompletionCreateParamsStreaming, price: Price, context: GenerateContext): Promise<GenerateResult> {
    const stream: AsyncIterable<ChatCompletionChunk> = await openai.chat.completions.create(body, { signal: context.signal });
    const assembler = createChunkAssembler(context.onDelta, promptChars(body));
    try {
      for await (const chunk of stream) assembler.push(chunk);
    } finally {
      // An aborted answer (a message interrupted it) still cost its prompt and what it streamed:
      // Chat Completions reports usage only at the end, so it is estimated when none came.
      if (context.signal.aborted) context.onPartialCost?.(costOf(price, assembler.usageSoFar()));
    }
    // The SDK ends an aborted stream quietly; the run must see the abort.
    if (context.signal.aborted) throw context.signal.reason;
    const answer = assembler.finish();
    const costUsd = usd(answer.reportedCostUsd ?? costOf(price, answer.usage));
    return { message: answer.message, usage: answer.usage, costUsd, stopReason: answer.stopReason };
  }

  async function generate(request: GenerateRequest, context: GenerateContext): Promise<GenerateResult> {
    if (client === undefined) throw new ProviderError(MISSING_OPENAI_KEY_MESSAGE, false);
    const price = callPrice("openai", request.model, prices);
    const body = toOpenAIParams(request, await loadImages(request));
    return withRetries(context, retry, failures, (tracked) => attempt(client, body, price, tracked));
  }

  return {
    name: "openai",
    generate,
    prices: tokenPricesIn(prices),
    contextWindow: openAIContextWindowOf,
    nativeCompaction: false,
  };
}
