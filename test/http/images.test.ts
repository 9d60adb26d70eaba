import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { prepareImages, storeImages } from "../../src/api/images";
import { sha256Hex } from "../../src/http/encoding";
import { ApiException } from "../../src/http/errors";
import { ImageIntake } from "../../src/http/images";

// A 1×1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

function bytesOf(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

describe("storeImages", () => {
  it("stores the bytes under images/<sha256> with the mime type and drops data", async () => {
    const hash = await sha256Hex(bytesOf(PNG));
    const stored = await storeImages([{ type: "text", text: "see" }, { type: "image", mimeType: "image/png", data: PNG, path: "dot.png" }], env.BLOBS, "content");
    expect(stored).toEqual({ ok: true, content: [{ type: "text", text: "see" }, { type: "image", mimeType: "image/png", hash, path: "dot.png" }] });
    const object = await env.BLOBS.get(`images/${hash}`);
    expect(object?.httpMetadata?.contentType).toBe("image/png");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytesOf(PNG));
  });

  it("accepts a matching hash in any case, and base64 without padding", async () => {
    const hash = await sha256Hex(bytesOf(PNG));
    const stored = await storeImages([{ type: "image", mimeType: "image/png", data: PNG.replace(/=+$/, ""), hash: hash.toUpperCase() }], env.BLOBS, "c");
    expect(stored).toEqual({ ok: true, content: [{ type: "image", mimeType: "image/png", hash }] });
  });

  it("keeps an image given by hash only, untouched", async () => {
    const part = { type: "image" as const, mimeType: "image/jpeg", hash: "f".repeat(64) };
    expect(await storeImages([part], env.BLOBS, "c")).toEqual({ ok: true, content: [part] });
  });

  it.each([
    ["not base64 at all", "%%%", "content.0.data", "not valid base64"],
    ["a data: URL", `data:image/png;base64,${PNG}`, "content.0.data", "not valid base64"],
    ["base64 with spaces", PNG.slice(0, 8) + " " + PNG.slice(8), "content.0.data", "not valid base64"],
    ["a truncated quantum", "abcde", "content.0.data", "not valid base64"],
    ["empty data", "", "content.0.data", "empty"],
  ])("refuses %s with its path", async (_name, data, path, message) => {
    const stored = await storeImages([{ type: "image", mimeType: "image/png", data }], env.BLOBS, "content");
    expect(stored.ok).toBe(false);
    if (stored.ok) return;
    expect(stored.issues).toHaveLength(1);
    expect(stored.issues[0]!.path).toBe(path);
    expect(stored.issues[0]!.message).toContain(message);
  });

  it("refuses a hash that does not match the bytes, and stores nothing", async () => {
    const wrong = "0".repeat(64);
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", data: PNG, hash: wrong }], "messages.0.content");
    expect(prepared.issues).toEqual([{ path: "messages.0.content.0.hash", message: expect.stringContaining("does not match") }]);
    expect(prepared.blobs).toEqual([]);
  });

  it("leaves plain text alone", async () => {
    expect(await storeImages("just text", env.BLOBS, "content")).toEqual({ ok: true, content: "just text" });
  });
});

describe("ImageIntake", () => {
  it("checks every message before storing anything", async () => {
    const goodBytes = bytesOf(btoa("never stored"));
    const intake = new ImageIntake();
    await intake.messages([
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: btoa("never stored") }] },
      { role: "user", content: [{ type: "text", text: "x" }, { type: "image", mimeType: "image/png", data: "!!" }] },
    ]);
    const error = await intake.commit(env.BLOBS).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException).status).toBe(400);
    expect((error as ApiException).issues).toEqual([{ path: "messages.1.content.1.data", message: "The image data is not valid base64." }]);
    expect(await env.BLOBS.head(`images/${await sha256Hex(goodBytes)}`)).toBeNull();
    expect(await env.BLOBS.head(`images/${await sha256Hex("never stored")}`)).toBeNull();
  });
});
