// The images a request sends by hash, loaded before the request is built (so building it stays a
// pure function): each read once from the run's blob store, and kept in memory for the provider's
// next steps. Shared by the real providers; each sends the bytes its own way (Anthropic a base64
// block, OpenAI a data URL).
import { toParts } from "../../loop/content";
import type { GenerateRequest, ImagePart } from "../../loop/types";
import { ProviderError } from "./errors";

/** An image's bytes, base64; the media type sent is the part's own. */
export type ImageData = { data: string };
/** The bytes of a stored image by hash (already loaded; see imageHashes). */
export type ImageLookup = (hash: string) => ImageData;

/** Images of one provider kept in memory, so a run's steps read each from the store once. */
const IMAGE_MEMO_ENTRIES = 64;

/** The hashes of the images the request sends without inline bytes, each once. */
export function imageHashes(request: GenerateRequest): string[] {
  const hashes = new Set<string>();
  for (const message of request.messages) {
    for (const part of toParts(message.content)) if (part.type === "image" && part.data === undefined) hashes.add(part.hash);
  }
  return [...hashes];
}

/** Loads a request's images through `images` (the blob store); a missing one fails the call, not retried. */
export function imageLoader(images: (hash: string) => Promise<ImageData | undefined>) {
  const memo = new Map<string, ImageData>();
  return async (request: GenerateRequest): Promise<ImageLookup> => {
    const loaded = new Map<string, ImageData>();
    await Promise.all(
      imageHashes(request).map(async (hash) => {
        const image = memo.get(hash) ?? (await images(hash));
        if (image === undefined) throw new ProviderError(`Image ${hash} is not in the blob store.`, false);
        loaded.set(hash, image);
        memo.set(hash, image);
      }),
    );
    while (memo.size > IMAGE_MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
    return (hash) => loaded.get(hash)!;
  };
}

/** The media types both vendors take, by the names a part may give them. */
const MEDIA_TYPES = {
  "image/jpeg": "image/jpeg",
  "image/jpg": "image/jpeg",
  "image/png": "image/png",
  "image/gif": "image/gif",
  "image/webp": "image/webp",
} as const;

export type ImageMediaType = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

/** An image part's media type and bytes (its own, or the loaded ones); a type `vendor` does not take fails the call, not retried. */
export function imageToSend(part: ImagePart, image: ImageLookup, vendor: string): { mediaType: ImageMediaType; data: string } {
  const mediaType = (MEDIA_TYPES as Record<string, ImageMediaType>)[part.mimeType.toLowerCase()];
  if (mediaType === undefined) throw new ProviderError(`Image ${part.path ?? part.hash} is ${part.mimeType}; ${vendor} takes JPEG, PNG, GIF or WebP.`, false);
  return { mediaType, data: part.data ?? image(part.hash).data };
}
