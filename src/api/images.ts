// Inline images (base64 `data`) become stored blobs: the bytes go to R2 under images/<sha256 hex>
// and the part keeps only its hash, so journals, events and model requests never carry the bytes.
// Used by the edge (messages, answers, continue) and by the run object (answers over WebSocket).
// Everything is checked before anything is stored, so a refused request leaves nothing behind.
import type { z } from "@hono/zod-openapi";
import type { Content, ContentPart } from "../loop/types";
import type { contentInputSchema, contentPartInputSchema, Issue } from "./schemas";

/** A content part as a client may send it: an image by inline bytes, by hash, or both. */
export type InputContentPart = z.infer<typeof contentPartInputSchema>;
export type InputContent = z.infer<typeof contentInputSchema>;

export type PendingBlob = { key: string; mimeType: string; bytes: Uint8Array };

export type PreparedImages = { content: Content; blobs: PendingBlob[]; issues: Issue[] };

/** Canonical base64 (standard alphabet), padding optional; no whitespace, no data: URL prefix. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export function imageKey(hash: string): string {
  return `images/${hash}`;
}

function decodeBase64(data: string): Uint8Array | undefined {
  if (!BASE64.test(data)) return undefined;
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function preparePart(part: InputContentPart, path: string, out: PreparedImages): Promise<ContentPart | undefined> {
  if (part.type === "text") return part;
  const { data, hash, ...rest } = part;
  if (data === undefined) {
    if (hash === undefined) {
      out.issues.push({ path: `${path}.hash`, message: "An image needs `data` (base64 bytes) or the `hash` of stored bytes." });
      return undefined;
    }
    return { ...rest, hash };
  }
  const bytes = decodeBase64(data);
  if (bytes === undefined || bytes.byteLength === 0) {
    out.issues.push({ path: `${path}.data`, message: bytes === undefined ? "The image data is not valid base64." : "The image data is empty." });
    return undefined;
  }
  const computed = await sha256Hex(bytes);
  if (hash !== undefined && hash.toLowerCase() !== computed) {
    out.issues.push({ path: `${path}.hash`, message: `The hash does not match the image data (its SHA-256 is ${computed}).` });
    return undefined;
  }
  out.blobs.push({ key: imageKey(computed), mimeType: part.mimeType, bytes });
  return { ...rest, hash: computed };
}

/** Checks and decodes the images of `content` (at `path`, for issues) without storing anything. */
export async function prepareImages(content: InputContent, path: string, into?: PreparedImages): Promise<PreparedImages> {
  const out: PreparedImages = into ?? { content: "", blobs: [], issues: [] };
  if (typeof content === "string") {
    out.content = content;
    return out;
  }
  const parts: ContentPart[] = [];
  for (const [index, part] of content.entries()) {
    const prepared = await preparePart(part, `${path}.${index}`, out);
    if (prepared !== undefined) parts.push(prepared);
  }
  out.content = parts;
  return out;
}

/** Writes the blobs (content-addressed, so writing one twice is harmless). */
export async function putBlobs(bucket: R2Bucket, blobs: readonly PendingBlob[]): Promise<void> {
  const unique = new Map(blobs.map((blob) => [blob.key, blob]));
  await Promise.all([...unique.values()].map((blob) => bucket.put(blob.key, blob.bytes, { httpMetadata: { contentType: blob.mimeType } })));
}

export type StoredImages = { ok: true; content: Content } | { ok: false; issues: Issue[] };

/** One content (an answer, a continue): checked, then its images stored. */
export async function storeImages(content: InputContent, bucket: R2Bucket, path: string): Promise<StoredImages> {
  const prepared = await prepareImages(content, path);
  if (prepared.issues.length > 0) return { ok: false, issues: prepared.issues };
  await putBlobs(bucket, prepared.blobs);
  return { ok: true, content: prepared.content };
}
