// The anthropic provider through the real SDK against the fake server: what is sent, what comes back.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { toAnthropicParams } from "../../src/providers/anthropic/anthropic-request";
import { ProviderError } from "../../src/providers/common/errors";
import { costOf, priceOf } from "../../src/providers/common/prices/prices";
import { fakeAnthropicUrl, recorded, script, uniqueModel } from "../fake-anthropic/client";
import { context, rejection, testProvider, textRequest } from "../helpers/anthropic";
import { usd } from "../../src/lib/money";

describe("anthropic provider (SDK → fake server)", () => {
  it("streams the text through onDelta and returns the assembled message", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "The answer is forty-two.", chunk: 6 }]);
    const deltas: string[] = [];
    const result = await testProvider().generate(textRequest(model), context(undefined, (delta) => deltas.push(delta)));
    expect(deltas).toEqual(["The an", "swer i", "s fort", "y-two."]);
    expect(result.message).toEqual({ role: "assistant", content: "The answer is forty-two." });
    expect(result.stopReason).toBe("end_turn");
  });

  it("sends the mapped body as it is, with the key and the API version; the SDK retries nothing", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "ok" }]);
    const request = textRequest(model);
    await testProvider().generate(request, context());
    const [sent] = await recorded(model);
    expect(sent!.path).toBe("/v1/messages");
    expect(sent!.raw).toBe(JSON.stringify(toAnthropicParams(request, () => ({ data: "", mimeType: "" }))));
    expect(sent!.headers).toMatchObject({ authorization: "Bearer test-key", "anthropic-version": "2026-10-21", "x-stainless-retry-count": "0" });
  });

  it("tool calls come back with their assembled input; an empty input is {}", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Let me look.", toolCalls: [{ id: "toolu_1", name: "search", input: { query: "tides at Brest, 12 May" } }, { id: "toolu_2", name: "search" }], jsonChunk: 3 }]);
    const result = await testProvider().generate(textRequest(model), context());
    expect(result.stopReason).toBe("tool_use");
    expect(result.message.toolCalls).toEqual([
      { id: "toolu_1", name: "search", input: { query: "tides at Brest, 12 May" } },
      { id: "toolu_2", name: "search", input: {} },
    ]);
  });

  it("images are read by hash (once per provider) and sent as base64", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "A cat." }, { text: "Still a cat." }]);
    const provider = testProvider({ stored: { h1: { data: "iVBORw0KGgo=" } } });
    const messages = [{ role: "user" as const, content: [{ type: "text" as const, text: "What is it?" }, { type: "image" as const, mimeType: "image/png", hash: "h1", path: "cat.png" }] }];
    await provider.generate(textRequest(model, messages), context());
    await provider.generate(textRequest(model, [...messages, { role: "assistant", content: "A cat." }, { role: "user", content: "Sure?" }]), context());
    expect(provider.imageReads).toEqual(["h1"]);
    const [first] = await recorded(model);
    expect((first!.body!.messages as Array<{ content: unknown[] }>)[0]!.content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } });
  });

  it("an image missing from the store fails the call at once, not retryable, and nothing is sent", async () => {
    const model = uniqueModel();
    const error = await rejection(testProvider().generate(textRequest(model, [{ role: "user", content: [{ type: "image", mimeType: "image/png", hash: "nope" }] }]), context()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(await recorded(model)).toEqual([]);
  });

  it("cost is the price table applied to the usage Anthropic reported", async () => {
    const model = uniqueModel("claude-opus-4-1");
    await script(model, [{ text: "Priced.", outputTokens: 321 }]);
    const result = await testProvider().generate(textRequest(model, [{ role: "user", content: "x".repeat(8000) }], { system: "y".repeat(6000) }), context());
    const reported = (await recorded(model))[0]!.usage!;
    expect(reported.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(result.usage).toEqual({
      inputTokens: reported.input_tokens + reported.cache_creation_input_tokens + reported.cache_read_input_tokens,
      outputTokens: 321,
      cachedReadTokens: reported.cache_read_input_tokens,
      cachedWriteTokens: reported.cache_creation_input_tokens,
    });
    const price = priceOf("claude-opus-4-1")!;
    const expected = (reported.input_tokens * price.input + reported.cache_creation_input_tokens * price.cacheWrite + reported.cache_read_input_tokens * price.cacheRead + 321 * price.output) / 1e6;
    // In whole micro-dollars, as every cost the service reports.
    expect(result.costUsd).toBe(usd(expected));
    expect(result.costUsd).toBe(usd(costOf(price, result.usage)));
  });

  it("a cost the answer reports (usage.cost) is used instead of the table", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Billed by the gateway.", cost: 0.0421 }]);
    expect((await testProvider().generate(textRequest(model), context())).costUsd).toBe(0.0421);
  });

  it("thinking blocks come back in providerBlocks with their signatures", async () => {
    const model = uniqueModel();
    await script(model, [{ thinking: [{ thinking: "The user wants brevity.", signature: "c2lnbmF0dXJl" }], text: "Yes." }]);
    const result = await testProvider().generate(textRequest(model, undefined, { params: { reasoning: true } }), context());
    expect(result.message.providerBlocks).toEqual([{ type: "thinking", thinking: "The user wants brevity.", signature: "c2lnbmF0dXJl" }]);
    expect((await recorded(model))[0]!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4096 }, max_tokens: 8192 + 4096 });
  });

  it("without an API key the call fails at once with what to set, and nothing is sent", async () => {
    const model = uniqueModel();
    const error = await rejection(testProvider({ apiKey: undefined }).generate(textRequest(model), context()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain("ANTHROPIC_API_KEY");
    expect((error as ProviderError).retryable).toBe(false);
    expect(await recorded(model)).toEqual([]);
  });
});

describe("the fake server itself", () => {
  it("answers stream: false with one Message of the same content and usage", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Whole.", toolCalls: [{ id: "toolu_9", name: "search", input: { query: "q" } }] }]);
    const client = new Anthropic({ apiKey: "k", baseURL: fakeAnthropicUrl(), maxRetries: 0 });
    const message = await client.messages.create({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [{ name: "search", input_schema: { type: "object" } }] });
    expect(message.content).toEqual([
      { type: "text", text: "Whole.", citations: null },
      { type: "tool_use", id: "toolu_9", name: "search", input: { query: "q" }, caller: { type: "direct" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it("streams the real event sequence: message_start, content_block_start, ping, deltas, stop, message_delta, message_stop", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Hi there", chunk: 4 }]);
    const response = await fetch(`${fakeAnthropicUrl()}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model, max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const names = [...(await response.text()).matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
    expect(names).toEqual(["message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });

  it("refuses what the real API refuses: no key (401), bad blocks (400)", async () => {
    const send = (headers: Record<string, string>, body: unknown) =>
      fetch(`${fakeAnthropicUrl()}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers }, body: JSON.stringify(body) });
    const model = uniqueModel();
    const noKey = await send({}, { model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const empty = await send({ "x-api-key": "k" }, { model, max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] });
    expect(empty.status).toBe(400);
    const orphan = await send({ "x-api-key": "k" }, { model, max_tokens: 10, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "x" }] }] });
    expect(((await orphan.json()) as { error: { message: string } }).error.message).toContain("unexpected `tool_use_id`");
  });
});
