// A run's provider: the anthropic one gets its key and base URL from the environment and the
// run's own images from the blob store.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { imageKey, r2BlobStore } from "../../src/durable/blob-store";
import { createRunProvider } from "../../src/durable/run-provider";
import { ProviderError } from "../../src/providers/errors";
import { fakeAnthropicUrl, recorded, script, uniqueModel } from "../fake-anthropic/client";
import { context, rejection, textRequest } from "../providers/anthropic-helpers";

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
