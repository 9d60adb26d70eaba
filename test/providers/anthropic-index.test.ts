// createProvider's anthropic branch: key and base URL from the environment, images from R2.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { imageKey } from "../../src/api/images";
import { createProvider } from "../../src/providers";
import { ProviderError } from "../../src/providers/errors";
import { fakeAnthropicUrl, recorded, script, uniqueModel } from "../fake-anthropic/client";
import { context, rejection, textRequest } from "./anthropic-helpers";

describe("createProvider: anthropic", () => {
  it("uses ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, and reads images from BLOBS at images/<hash>", async () => {
    const model = uniqueModel();
    await script(model, [{ text: "Two pixels." }]);
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 255]);
    const hash = `test-${crypto.randomUUID()}`;
    await env.BLOBS.put(imageKey(hash), bytes, { httpMetadata: { contentType: "image/png" } });
    const provider = createProvider({ provider: "anthropic", messages: [] }, { ...env, ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: fakeAnthropicUrl() });
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
    const provider = createProvider({ provider: "anthropic", messages: [] }, { ...env, ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "" });
    const error = (await rejection(provider.generate(textRequest(uniqueModel()), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("The anthropic provider needs ANTHROPIC_API_KEY (wrangler secret put ANTHROPIC_API_KEY).");
  });
});
