// The anthropic provider: one model step = one streamed POST /v1/messages through the official
// SDK, retried here and nowhere else (maxRetries: 0 on the client), before anything is stored.
import Anthropic from "@anthropic-ai/sdk";
import type { GenerateContext, GenerateRequest, GenerateResult } from "../../loop/types";
import { describeFailure, providerErrorFor } from "./anthropic-errors";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { compactionBeta, toAnthropicParams } from "./anthropic-request";
import { createAssembler } from "./anthropic-stream";
import { contextWindowOf } from "../common/context-windows";
import { isContextOverflow } from "./context-overflow";
import { ProviderError } from "../common/errors";
import { callPrice, tokenPricesIn } from "../common/prices/model-prices";
import { ANTHROPIC_PRICES, costOf, serverToolCostOf, type Price } from "../common/prices/prices";
import { imageLoader } from "../common/request-images";
import { nativeBetas } from "../../tools/native-tools";
import { retryDepsOf, withRetries, type FailureReading } from "../common/with-retries";
import type { Provider, VendorProviderOptions } from "../common/types";
import { usd } from "../../lib/money";

export type AnthropicProviderOptions = VendorProviderOptions & {
  /** Defaults to the SDK's https://api.anthropic.com. */
  baseURL?: string;
  /** The clock an expired container is told by. */
  now?: () => number;
};

/**
 * The request without its container when the container has expired (the API would refuse it): the
 * code then runs in a new one, without the old one's files.
 */
export function withLiveContainer(request: GenerateRequest, now: number): GenerateRequest {
  const expiresAt = request.container?.expiresAt;
  if (expiresAt === undefined || !(Date.parse(expiresAt) <= now)) return request;
  const { container: _expired, ...rest } = request;
  return rest;
}

const ANTHROPIC_FAILURES: FailureReading = { vendor: "Anthropic", describe: describeFailure, isContextOverflow, endingError: providerErrorFor };

export const MISSING_KEY_MESSAGE = "The anthropic provider needs ANTHROPIC_API_KEY (wrangler secret put ANTHROPIC_API_KEY).";

export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const { apiKey } = options;
  const retry = retryDepsOf(options);
  const prices = options.prices ?? ANTHROPIC_PRICES;
  const loadImages = imageLoader(options.images);
  const now = options.now ?? Date.now;
  // One client per provider; with no key none is made (the SDK would look for credentials elsewhere).
  const client =
    apiKey === undefined || apiKey.length === 0
      ? undefined
      : new Anthropic({
          apiKey,
          baseURL: options.baseURL ?? null,
          maxRetries: 0,
          openTelemetry: false,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });

  /** The streamed answer's events: the plain endpoint, or the beta one for a request that compacts or has a beta tool. */
  async function open(anthropic: Anthropic, body: ReturnType<typeof toAnthropicParams>, request: GenerateRequest, signal: AbortSignal): Promise<AsyncIterable<RawMessageStreamEvent>> {
    const beta = compactionBeta(request);
    const betas = [...(beta?.betas ?? []), ...nativeBetas(request.tools.flatMap((tool) => (tool.native === undefined ? [] : [tool.native])))];
    if (betas.length === 0) return anthropic.messages.create(body, { signal });
    const params = { ...body, ...beta, betas } as unknown as Parameters<typeof anthropic.beta.messages.create>[0] & { stream: true };
    // The beta stream's events are the plain ones plus compaction blocks, which the assembler keeps.
    return (await anthropic.beta.messages.create(params, { signal })) as unknown as AsyncIterable<RawMessageStreamEvent>;
  }

  async function attempt(anthropic: Anthropic, body: ReturnType<typeof toAnthropicParams>, request: GenerateRequest, price: Price, context: GenerateContext): Promise<GenerateResult> {
    const stream = await open(anthropic, body, request, context.signal);
    const assembler = createAssembler(context.onDelta);
    try {
      for await (const event of stream) assembler.push(event);
    } finally {
      // An aborted answer (a message interrupted it) still cost its prompt's tokens, once reported.
      if (context.signal.aborted) context.onPartialCost?.(costOf(price, assembler.usageSoFar()));
    }
    // The SDK ends an aborted stream quietly; the run must see the abort.
    if (context.signal.aborted) throw context.signal.reason;
    const answer = assembler.finish();
    const costUsd = usd(answer.reportedCostUsd ?? costOf(price, answer.usage) + serverToolCostOf(answer.usage));
    const result: GenerateResult = { message: answer.message, usage: answer.usage, costUsd, stopReason: answer.stopReason };
    if (answer.providerToolCalls !== undefined && answer.providerToolCalls.length > 0) result.providerToolCalls = answer.providerToolCalls;
    return result;
  }

  async function generate(request: GenerateRequest, context: GenerateContext): Promise<GenerateResult> {
    if (client === undefined) throw new ProviderError(MISSING_KEY_MESSAGE, false);
    const price = callPrice("anthropic", request.model, prices);
    const body = toAnthropicParams(withLiveContainer(request, now()), await loadImages(request));
    return withRetries(context, retry, ANTHROPIC_FAILURES, (tracked) => attempt(client, body, request, price, tracked));
  }

  return {
    name: "anthropic",
    generate,
    prices: tokenPricesIn(prices),
    contextWindow: contextWindowOf,
    nativeCompaction: true,
  };
}
