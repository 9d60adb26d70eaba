// Inline images (base64 `data`) become stored blobs: the bytes are kept with the run they belong
// to and the part keeps only its hash, so journals, events and model requests never carry the
// bytes. This file only checks and decodes (pure); the run object stores them (src/durable/blobs/blob-store.ts).
// An image must be JPEG, PNG, GIF or WebP, and its bytes must be what its mimeType says: the
// provider is sent the part's own media type, so a mislabelled image would fail the run later.
import type { z } from "@hono/zod-openapi";
import type { Content, ContentPart } from "../../loop/types";
import type { contentInputSchema, contentPartInputSchema } from "../schemas/runs/content-schemas";
import type { Issue } from "../schemas/error-schemas";
import type { ImageMediaType } from "./image-types";

/** A content part as a client may send it: an image by inline bytes, by hash, or both. */
export type InputContentPart = z.infer<typeof contentPartInputSchema>;
export type InputContent = z.infer<typeof contentInputSchema>;

export { IMAGE_MEDIA_TYPES, type ImageMediaType } from "./image-types";

export type PendingImage = { hash: string; mimeType: ImageMediaType; bytes: Uint8Array };
/** An image given by hash only: it must be stored for the run already (or come with bytes in the same request). */
export type ImageReference = { hash: string; path: string };

export type PreparedImages = { content: Content; images: PendingImage[]; references: ImageReference[]; issues: Issue[] };

/** What a request brings to the run object: decoded images to store, and images it names by hash. */
export type ImageUpload = { images: PendingImage[]; references: ImageReference[] };

export const NO_IMAGES: ImageUpload = { images: [], references: [] };

/** Canonical base64 (standard alphabet), padding optional; no whitespace, no data: URL prefix. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

const NAMES: Record<ImageMediaType, string> = { "image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WebP" };

function decodeBase64(data: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(data)) return undefined;
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function startsWith(bytes: Uint8Array, at: number, signature: readonly number[]): boolean {
  return signature.every((byte, i) => bytes[at + i] === byte);
}

/** The media type the bytes' signature says, if it is one of the four. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, 0, [0x47, 0x49, 0x46, 0x38])) return "image/gif"; // GIF8(7|9)a
  if (startsWith(bytes, 0, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, 8, [0x57, 0x45, 0x42, 0x50])) return "image/webp"; // RIFF….WEBP
  return undefined;
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function bytesProblem(bytes: Uint8Array | undefined, mimeType: ImageMediaType): string | undefined {
  if (bytes === undefined) return "The image data is not valid base64.";
  if (bytes.byteLength === 0) return "The image data is empty.";
  const sniffed = sniffImageType(bytes);
  if (sniffed === undefined) return "The image data is not a JPEG, PNG, GIF or WebP image.";
  if (sniffed !== mimeType) return `The image data is a ${NAMES[sniffed]} image, not ${mimeType}.`;
  return undefined;
}

async function preparePart(part: InputContentPart, path: string, out: PreparedImages): Promise<ContentPart | undefined> {
  if (part.type === "text") return part;
  const { data, hash, ...rest } = part;
  if (data === undefined) {
    if (hash === undefined) {
      out.issues.push({ path: `${path}.hash`, message: "An image needs `data` (base64 bytes) or the `hash` of stored bytes." });
      return undefined;
    }
    out.references.push({ hash: hash.toLowerCase(), path: `${path}.hash` });
    return { ...rest, hash: hash.toLowerCase() };
  }
  const bytes = decodeBase64(data);
  const problem = bytesProblem(bytes, part.mimeType);
  if (problem !== undefined) {
    out.issues.push({ path: `${path}.data`, message: problem });
    return undefined;
  }
  const computed = await sha256Hex(bytes!);
  if (hash !== undefined && hash.toLowerCase() !== computed) {
    out.issues.push({ path: `${path}.hash`, message: `The hash does not match the image data (its SHA-256 is ${computed}).` });
    return undefined;
  }
  out.images.push({ hash: computed, mimeType: part.mimeType, bytes: bytes! });
  return { ...rest, hash: computed };
}

/** Checks and decodes the images of `content` (at `path`, for issues) without storing anything. */
export async function prepareImages(content: InputContent, path: string, into?: PreparedImages): Promise<PreparedImages> {
  const out: PreparedImages = into ?? { content: "", images: [], references: [], issues: [] };
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

/** References whose bytes this request does not bring itself: the store must have them already. */
export function outsideReferences(prepared: Pick<PreparedImages, "images" | "references">): ImageReference[] {
  const brought = new Set(prepared.images.map((image) => image.hash));
  return prepared.references.filter((reference) => !brought.has(reference.hash));
}

export const MISSING_IMAGE = "No image with this hash is stored for this run: send its bytes in `data`.";
