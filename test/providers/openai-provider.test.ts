// The openai provider through the official SDK against the fake OpenAI server: what it sends (a
// strict server takes it), images from the blob store, usage and cost from the price table
// (automatic prefix caching included), reasoning, and the price rule.
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/providers/common/errors";
import { OPENAI_PRICES } from "../../src/providers/common/prices/openai-prices";
import { costOf } from "../../src/providers/common/prices/prices";
import { recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { context, rejection, textRequest } from "../helpers/anthropic";
import { testOpenAIProvider } from "../helpers/openai";
import { usd } from "../../src/lib/money";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

describe("openai provider", () => {
  it("sends a history with tool calls, results and stored images that the strict server takes; each image is read once", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "unused" }, { text: "A red dot." }, { text: "Still a red dot." }]);
    const provider = testOpenAIProvider({ stored: { dot: { data: PNG } } });
    const messages = [
      { role: "user" as const, content: [{ type: "text" as const, text: "Take a shot." }] },
      { role: "assistant" as const, content: "Shooting.", toolCalls: [{ id: "call_shot", name: "search", input: { query: "dot" } }] },
      { role: "tool" as const, toolCallId: "call_shot", content: [{ type: "image" as const, mimeType: "image/png", hash: "dot", path: "dot.png" }] },
    ];
    expect((await provider.generate(textRequest(model, messages), context())).message.content).toBe("A red dot.");
    await provider.generate(textRequest(model, messages), context());
    expect(provider.imageReads).toEqual(["dot"]);
    const [sent] = await recordedOpenAI(model);
    expect(sent!.outcome).toBe("ok");
    expect(sent!.headers.authorization).toBe("Bearer test-openai-key");
    // Nothing the SDK would take from the environment (organization, project) is sent.
    expect(sent!.headers["openai-organization"]).toBeUndefined();
    expect(sent!.headers["openai-project"]).toBeUndefined();
    const body = sent!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(body.messages[4]!.content).toEqual([
      { type: "text", text: "Images returned by tool call call_shot:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it("usage and cost: prompt, completion and cached tokens at the table's rates (gpt-5.5: $5 in, $0.50 cached, $30 out)", async () => {
    const model = uniqueOpenAIModel("gpt-5.5");
    await scriptOpenAI(model, [{ text: "First.", outputTokens: 40 }, { text: "Second.", outputTokens: 50 }]);
    const provider = testOpenAIProvider();
    const system = "Follow the house style: short sentences, sources named. ".repeat(150);
    const first = await provider.generate(textRequest(model, [{ role: "user", content: "One?" }], { system }), context());
    const second = await provider.generate(textRequest(model, [{ role: "user", content: "One?" }, { role: "assistant", content: "First." }, { role: "user", content: "Two?" }], { system }), context());
    const [a, b] = await recordedOpenAI(model);
    expect(first.usage).toEqual({ inputTokens: a!.usage!.prompt_tokens, outputTokens: 40, cachedReadTokens: 0, cachedWriteTokens: 0 });
    expect(second.usage).toEqual({ inputTokens: b!.usage!.prompt_tokens, outputTokens: 50, cachedReadTokens: b!.usage!.cached_tokens, cachedWriteTokens: 0 });
    expect(second.usage.cachedReadTokens).toBeGreaterThanOrEqual(1024);
    const expected = ((second.usage.inputTokens - second.usage.cachedReadTokens) * 5 + second.usage.cachedReadTokens * 0.5 + 50 * 30) / 1e6;
    // In whole micro-dollars, as every cost the service reports.
    expect(second.costUsd).toBe(usd(expected));
    expect(second.costUsd).toBe(usd(costOf(OPENAI_PRICES["gpt-5.5"]!, second.usage)));
  });

  it("a cost the answer reports (a gateway's usage.cost) is used instead of the table", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "Billed by the gateway.", cost: 0.0421 }]);
    expect((await testOpenAIProvider().generate(textRequest(model), context())).costUsd).toBe(0.0421);
  });

  it("reasoning goes as reasoning_effort to a model that takes it, with room for it in max_completion_tokens", async () => {
    const model = uniqueOpenAIModel("o4-mini");
    await scriptOpenAI(model, [{ text: "Thought about it." }]);
    await testOpenAIProvider().generate(textRequest(model, undefined, { params: { reasoning: true }, maxTokens: 1000 }), context());
    expect((await recordedOpenAI(model))[0]!.body).toMatchObject({ reasoning_effort: "medium", max_completion_tokens: 5096 });
  });

  it("a model with no price is refused before anything is sent; PRICES rows price any model", async () => {
    const model = `my-gateway-model-${crypto.randomUUID().slice(0, 8)}`;
    await scriptOpenAI(model, [{ text: "Priced by the deployment.", outputTokens: 10 }]);
    const unpriced = testOpenAIProvider();
    expect(unpriced.prices!(model)).toBeUndefined();
    const error = (await rejection(unpriced.generate(textRequest(model), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("PRICES");
    expect(await recordedOpenAI(model)).toHaveLength(0);
    const priced = testOpenAIProvider({ prices: { ...OPENAI_PRICES, [model]: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1 } } });
    expect(priced.prices!(model)).toEqual({ input: 1e-6, output: 2e-6, cacheWrite: 1e-6 });
    const result = await priced.generate(textRequest(model), context());
    expect(result.costUsd).toBe(usd((result.usage.inputTokens * 1 + 10 * 2) / 1e6));
  });

  it("context windows of the table's models; another endpoint's model gets 128,000", () => {
    const provider = testOpenAIProvider();
    expect(provider.contextWindow("gpt-4.1-mini")).toBe(1_047_576);
    expect(provider.contextWindow("gpt-5.5-2026-04-23")).toBe(272_000);
    expect(provider.contextWindow("o3")).toBe(200_000);
    expect(provider.contextWindow("llama-3.3-70b")).toBe(128_000);
    expect(provider.nativeCompaction).toBe(false);
  });
});
