// The one room for a run's blobs (images) in R2. Only the run object writes and deletes them (so
// an upload and the run's deletion never cross); the provider reads them. Every blob belongs to
// one run, under runs/<runId>/: a hash from another run names nothing here, and deleting a run
// deletes everything under its prefix.
import { MISSING_IMAGE, outsideReferences, type ImageUpload, type PendingImage } from "../../api/images/images";
import type { Issue } from "../../api/schemas/error-schemas";

/** An image a run's blobs hold: its content hash and its size in bytes. */
export type HeldImage = { hash: string; bytes: number };

export type BlobStore = {
  putImages(runId: string, images: readonly PendingImage[]): Promise<void>;
  /** The hashes of `hashes` that this run has no image for. */
  missingImages(runId: string, hashes: readonly string[]): Promise<string[]>;
  readImage(runId: string, hash: string): Promise<Uint8Array | undefined>;
  /** Deletes every blob of the run; returns how many there were. */
  deleteRun(runId: string): Promise<number>;
  /** The images stored for the run, with their sizes (one listing: no blob is read). */
  listImages(runId: string): Promise<HeldImage[]>;
  /** Copies `images` (as listImages listed them) of run `from` to run `to`: a fork's own copy of its source's images. */
  copyImages(from: string, to: string, images: readonly HeldImage[]): Promise<void>;
  /** The keys stored for the run (for tests and operators). */
  list(runId: string): Promise<string[]>;
};

const runPrefix = (runId: string) => `runs/${runId}/`;
const imagePrefix = (runId: string) => `${runPrefix(runId)}images/`;
export const imageKey = (runId: string, hash: string) => `${imagePrefix(runId)}${hash}`;

/** R2 deletes at most this many keys per call. */
const DELETE_BATCH = 1000;

export function r2BlobStore(bucket: R2Bucket): BlobStore {
  async function objects(prefix: string): Promise<R2Object[]> {
    const found: R2Object[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, ...(cursor === undefined ? {} : { cursor }) });
      found.push(...page.objects);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return found;
  }
  async function list(runId: string): Promise<string[]> {
    return (await objects(runPrefix(runId))).map((object) => object.key);
  }
  return {
    async putImages(runId, images) {
      const unique = new Map(images.map((image) => [image.hash, image]));
      await Promise.all(
        [...unique.values()].map((image) => bucket.put(imageKey(runId, image.hash), image.bytes, { httpMetadata: { contentType: image.mimeType } })),
      );
    },
    async missingImages(runId, hashes) {
      const unique = [...new Set(hashes)];
      const found = await Promise.all(unique.map((hash) => bucket.head(imageKey(runId, hash))));
      return unique.filter((_hash, i) => found[i] === null);
    },
    async readImage(runId, hash) {
      const object = await bucket.get(imageKey(runId, hash));
      return object === null ? undefined : new Uint8Array(await object.arrayBuffer());
    },
    async listImages(runId) {
      const prefix = imagePrefix(runId);
      return (await objects(prefix)).map((object) => ({ hash: object.key.slice(prefix.length), bytes: object.size }));
    },
    async deleteRun(runId) {
      const keys = await list(runId);
      for (let at = 0; at < keys.length; at += DELETE_BATCH) await bucket.delete(keys.slice(at, at + DELETE_BATCH));
      return keys.length;
    },
    async copyImages(from, to, images) {
      await Promise.all(
        images.map(async ({ hash }) => {
          const object = await bucket.get(imageKey(from, hash));
          if (object === null) return;
          await bucket.put(imageKey(to, hash), await object.arrayBuffer(), object.httpMetadata === undefined ? {} : { httpMetadata: object.httpMetadata });
        }),
      );
    },
    list,
  };
}

/**
 * The issues of the images an upload names by hash that neither it nor the run's store holds
 * (asked of the blobs themselves, never of a count: an image is named only once it is stored).
 */
export async function missingReferences(store: BlobStore, runId: string, upload: ImageUpload): Promise<Issue[]> {
  const outside = outsideReferences(upload);
  if (outside.length === 0) return [];
  const missing = new Set(await store.missingImages(runId, outside.map((reference) => reference.hash)));
  return outside.filter((reference) => missing.has(reference.hash)).map((reference) => ({ path: reference.path, message: MISSING_IMAGE }));
}

/** Stores an upload's images for run `runId`, or returns the issues of missingReferences (then nothing is stored). */
export async function acceptImages(store: BlobStore, runId: string, upload: ImageUpload): Promise<Issue[]> {
  const issues = await missingReferences(store, runId, upload);
  if (issues.length > 0) return issues;
  await store.putImages(runId, upload.images);
  return [];
}
