// A run's provider: each real one gets its key and base URL from the environment, the PRICES rows
// over its price table, and the run's own images from the blob store.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { imageKey, r2BlobStore } from "../../src/durable/blobs/blob-store";
import { createRunProvider } from "../../src/durable/engine/provider/run-provider";
import { ProviderError } from "../../src/providers/common/errors";
import { fakeAnthropicUrl, recorded, script, uniqueModel } from "../fake-anthropic/client";
import { fakeOpenAIUrl, recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { context, rejection, textRequest } from "../helpers/anthropic";

const blobs = r2BlobStore(env.BLOBS);

describe("createRunProvider: anthropic", () => {
  it("uses ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, and reads the run's images from runs/<id>/images/<hash>", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Two pixels." }]);
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 255]);
    const hash = `test-${crypto.randomUUID()}`;
    const runId = `run_${crypto.randomUUID()}`;
    await env.BLOBS.put(imageKey(runId, hash), bytes, { httpMetadata: { contentType: "image/png" } });
    const provider = createRunProvider({ runId, provider: "anthropic", messages: [] }, { ...env, ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: fakeAnthropicUrl() }, blobs);
    expect(provider.name).toBe("anthropic");
    const messages = [{ role: "user" as const, content: [{ type: "image" as const, mimeType: "image/png", hash }] }];
    const result = await provider.generate(textRequest(model, messages), context());
    expect(result.message.content).toBe("Two pixels.");
    const [sent] = await recorded(model);
    expect(sent!.headers.authorization).toBe("Bearer env-key");
    const image = (sent!.body!.messages as Array<{ content: Array<{ source?: { data: string } }> }>)[0]!.content[0]!;
    expect(image).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: btoa(String.fromCharCode(...bytes)) } });
  });

  it("without a key the provider is still built (reading a run needs it); its first call fails clearly", async () => {
    const provider = createRunProvider({ runId: "run_x", provider: "anthropic", messages: [] }, { ...env, ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "" }, blobs);
    const error = (await rejection(provider.generate(textRequest(uniqueModel()), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("The anthropic provider needs ANTHROPIC_API_KEY (wrangler secret put ANTHROPIC_API_KEY).");
  });
});

describe("createRunProvider: images of another run", () => {
  it("an image stored for one run is not sent for another", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "unused" }]);
    const hash = `test-${crypto.randomUUID()}`;
    await env.BLOBS.put(imageKey("run_owner", hash), new Uint8Array([1, 2, 3]));
    const provider = createRunProvider({ runId: "run_other", provider: "anthropic", messages: [] }, { ...env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fakeAnthropicUrl() }, blobs);
    const messages = [{ role: "user" as const, content: [{ type: "image" as const, mimeType: "image/png", hash }] }];
    const error = (await rejection(provider.generate(textRequest(model, messages), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("is not in the blob store");
    expect(await recorded(model)).toEqual([]);
  });
});

describe("createRunProvider: openai", () => {
  it("uses OPENAI_API_KEY and OPENAI_BASE_URL, and sends the run's images as data URLs", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [{ text: "Two pixels." }]);
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 255]);
    const hash = `test-${crypto.randomUUID()}`;
    const runId = `run_${crypto.randomUUID()}`;
    await env.BLOBS.put(imageKey(runId, hash), bytes, { httpMetadata: { contentType: "image/png" } });
    const provider = createRunProvider({ runId, provider: "openai", messages: [] }, { ...env, OPENAI_API_KEY: "env-openai-key", OPENAI_BASE_URL: fakeOpenAIUrl() }, blobs);
    expect(provider).toMatchObject({ name: "openai", nativeCompaction: false });
    const messages = [{ role: "user" as const, content: [{ type: "image" as const, mimeType: "image/png", hash }] }];
    expect((await provider.generate(textRequest(model, messages), context())).message.content).toBe("Two pixels.");
    const [sent] = await recordedOpenAI(model);
    expect(sent!.headers.authorization).toBe("Bearer env-openai-key");
    const user = (sent!.body!.messages as Array<{ role: string; content: unknown }>)[1]!;
    expect(user.content).toEqual([{ type: "image_url", image_url: { url: `data:image/png;base64,${btoa(String.fromCharCode(...bytes))}` } }]);
  });

  it("without a key the provider is still built; its first call fails clearly", async () => {
    const provider = createRunProvider({ runId: "run_x", provider: "openai", messages: [] }, { ...env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" }, blobs);
    const error = (await rejection(provider.generate(textRequest(uniqueOpenAIModel()), context()))) as ProviderError;
    expect(error).toMatchObject({ retryable: false, message: "The openai provider needs OPENAI_API_KEY (wrangler secret put OPENAI_API_KEY)." });
  });
});

describe("createRunProvider: PRICES", () => {
  it("a PRICES row prices a model the table does not know and overrides one it does, for either provider", async () => {
    const prices = JSON.stringify({ "house-model": { input: 1, output: 2 }, "gpt-5.5": { input: 4, output: 20, cacheRead: 0.4 }, "claude-sonnet-4-5": { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 } });
    const withPrices = { ...env, PRICES: prices };
    const openai = createRunProvider({ runId: "run_p", provider: "openai", messages: [] }, withPrices, blobs);
    expect(openai.prices!("house-model")).toEqual({ input: 1e-6, output: 2e-6, cacheWrite: 1e-6 });
    expect(openai.prices!("gpt-5.5-2026-04-23")).toEqual({ input: 4e-6, output: 20e-6, cacheWrite: 4e-6 });
    expect(openai.prices!("gpt-4o")).toEqual({ input: 2.5e-6, output: 10e-6, cacheWrite: 2.5e-6 });
    const anthropic = createRunProvider({ runId: "run_p", provider: "anthropic", messages: [] }, withPrices, blobs);
    expect(anthropic.prices!("claude-sonnet-4-5")).toEqual({ input: 2e-6, output: 10e-6, cacheWrite: 2.5e-6 });
    expect(anthropic.prices!("house-model")).toEqual({ input: 1e-6, output: 2e-6, cacheWrite: 1e-6 });
    // Without PRICES: no fallback row for a model the table does not know.
    expect(createRunProvider({ runId: "run_p", provider: "anthropic", messages: [] }, env, blobs).prices!("house-model")).toBeUndefined();
  });

  it("a model whose price went away since the run was made fails its call before anything is sent, naming PRICES", async () => {
    const model = `house-model-${crypto.randomUUID().slice(0, 8)}`;
    await scriptOpenAI(model, [{ text: "unused" }]);
    const provider = createRunProvider({ runId: "run_p", provider: "openai", messages: [] }, env, blobs);
    const error = (await rejection(provider.generate(textRequest(model), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("add it to the PRICES setting");
    expect(await recordedOpenAI(model)).toEqual([]);
  });
});
