// Images in requests: checked and decoded at the edge (prepareImages, ImageIntake), stored by the
// run object under the run they belong to (acceptImages, the blob store).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MISSING_IMAGE, prepareImages, sniffImageType } from "../../src/api/images/images";
import { acceptImages, imageKey, r2BlobStore } from "../../src/durable/blobs/blob-store";
import { sha256Hex } from "../../src/lib/text/encoding";
import { ApiException } from "../../src/http/errors";
import { ImageIntake } from "../../src/http/intake/images";

// A 1×1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const JPEG = btoa(String.fromCharCode(0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70));
const GIF = btoa("GIF89a\x01\x00\x01\x00");
const WEBP = btoa("RIFF\x1a\x00\x00\x00WEBPVP8 ");

function bytesOf(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

const store = r2BlobStore(env.BLOBS);
const runId = () => `run_images_${crypto.randomUUID()}`;

describe("prepareImages", () => {
  it("decodes the bytes, names them by SHA-256 and drops data", async () => {
    const hash = await sha256Hex(bytesOf(PNG));
    const prepared = await prepareImages([{ type: "text", text: "see" }, { type: "image", mimeType: "image/png", data: PNG, path: "dot.png" }], "content");
    expect(prepared.issues).toEqual([]);
    expect(prepared.content).toEqual([{ type: "text", text: "see" }, { type: "image", mimeType: "image/png", hash, path: "dot.png" }]);
    expect(prepared.images).toEqual([{ hash, mimeType: "image/png", bytes: bytesOf(PNG) }]);
  });

  it("accepts a matching hash in any case, and base64 without padding", async () => {
    const hash = await sha256Hex(bytesOf(PNG));
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", data: PNG.replace(/=+$/, ""), hash: hash.toUpperCase() }], "c");
    expect(prepared.issues).toEqual([]);
    expect(prepared.content).toEqual([{ type: "image", mimeType: "image/png", hash }]);
  });

  it("keeps an image given by hash only as a reference the run must hold", async () => {
    const prepared = await prepareImages([{ type: "image", mimeType: "image/jpeg", hash: "F".repeat(64) }], "c");
    expect(prepared.content).toEqual([{ type: "image", mimeType: "image/jpeg", hash: "f".repeat(64) }]);
    expect(prepared.references).toEqual([{ hash: "f".repeat(64), path: "c.0.hash" }]);
    expect(prepared.images).toEqual([]);
  });

  it.each([
    ["not base64 at all", "%%%", "not valid base64"],
    ["a data: URL", `data:image/png;base64,${PNG}`, "not valid base64"],
    ["base64 with spaces", PNG.slice(0, 8) + " " + PNG.slice(8), "not valid base64"],
    ["a truncated quantum", "abcde", "not valid base64"],
    ["empty data", "", "empty"],
    ["bytes of no image type", btoa("just some text"), "not a JPEG, PNG, GIF or WebP image"],
    ["a JPEG called a PNG", JPEG, "is a JPEG image, not image/png"],
  ])("refuses %s with its path", async (_name, data, message) => {
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", data }], "content");
    expect(prepared.issues).toHaveLength(1);
    expect(prepared.issues[0]!.path).toBe("content.0.data");
    expect(prepared.issues[0]!.message).toContain(message);
  });

  it("refuses a hash that does not match the bytes", async () => {
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", data: PNG, hash: "0".repeat(64) }], "messages.0.content");
    expect(prepared.issues).toEqual([{ path: "messages.0.content.0.hash", message: expect.stringContaining("does not match") }]);
    expect(prepared.images).toEqual([]);
  });

  it("tells the four image types by their bytes", () => {
    expect([PNG, JPEG, GIF, WEBP].map((data) => sniffImageType(bytesOf(data)))).toEqual(["image/png", "image/jpeg", "image/gif", "image/webp"]);
    expect(sniffImageType(bytesOf(btoa("<svg/>")))).toBeUndefined();
  });

  it("leaves plain text alone", async () => {
    expect((await prepareImages("just text", "content")).content).toBe("just text");
  });
});

describe("acceptImages: a run's blobs are its own", () => {
  it("stores the bytes under runs/<id>/images/<sha256> with their media type", async () => {
    const id = runId();
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", data: PNG }], "content");
    expect(await acceptImages(store, id, prepared)).toEqual([]);
    const hash = await sha256Hex(bytesOf(PNG));
    const object = await env.BLOBS.get(imageKey(id, hash));
    expect(object?.httpMetadata?.contentType).toBe("image/png");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytesOf(PNG));
    expect(await store.list(id)).toEqual([`runs/${id}/images/${hash}`]);
  });

  it("refuses a hash this run does not hold, even when another run holds it, and stores nothing", async () => {
    const owner = runId();
    const other = runId();
    const hash = await sha256Hex(bytesOf(PNG));
    await acceptImages(store, owner, await prepareImages([{ type: "image", mimeType: "image/png", data: PNG }], "c"));
    const byHash = await prepareImages([{ type: "image", mimeType: "image/png", hash }, { type: "image", mimeType: "image/gif", data: GIF }], "content");
    expect(await acceptImages(store, other, byHash)).toEqual([{ path: "content.0.hash", message: MISSING_IMAGE }]);
    expect(await store.list(other)).toEqual([]);
    expect(await acceptImages(store, owner, byHash)).toEqual([]);
  });

  it("takes a hash whose bytes come in the same request", async () => {
    const id = runId();
    const hash = await sha256Hex(bytesOf(PNG));
    const prepared = await prepareImages([{ type: "image", mimeType: "image/png", hash }, { type: "image", mimeType: "image/png", data: PNG }], "c");
    expect(await acceptImages(store, id, prepared)).toEqual([]);
  });

  it("deleteRun removes every blob of the run and nothing of another", async () => {
    const [a, b] = [runId(), runId()];
    for (const id of [a, b]) await acceptImages(store, id, await prepareImages([{ type: "image", mimeType: "image/png", data: PNG }, { type: "image", mimeType: "image/gif", data: GIF }], "c"));
    expect(await store.deleteRun(a)).toBe(2);
    expect(await store.list(a)).toEqual([]);
    expect(await store.list(b)).toHaveLength(2);
  });
});

describe("ImageIntake", () => {
  it("checks every message and hands on nothing when one image is bad", async () => {
    const intake = new ImageIntake();
    await intake.messages([
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: PNG }] },
      { role: "user", content: [{ type: "text", text: "x" }, { type: "image", mimeType: "image/png", data: "!!" }] },
    ]);
    const error = (() => {
      try {
        intake.upload();
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException).status).toBe(400);
    expect((error as ApiException).issues).toEqual([{ path: "messages.1.content.1.data", message: "The image data is not valid base64." }]);
  });
});
