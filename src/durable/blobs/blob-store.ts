// The one room for a run's blobs (images) in R2. Only the run object writes and deletes them (so
// an upload and the run's deletion never cross); the provider reads them. Every blob belongs to
// one run, under runs/<runId>/: a hash from another run names nothing here, and deleting a run
// deletes everything under its prefix.
import { MISSING_IMAGE, outsideReferences, type ImageUpload, type PendingImage } from "../../api/images/images";
import type { Issue } from "../../api/schemas/error-schemas";

export type BlobStore = {
  putImages(runId: string, images: readonly PendingImage[]): Promise<void>;
  /** The hashes of `hashes` that this run has no image for. */
  missingImages(runId: string, hashes: readonly string[]): Promise<string[]>;
  readImage(runId: string, hash: string): Promise<Uint8Array | undefined>;
  /** Deletes every blob of the run; returns how many there were. */
  deleteRun(runId: string): Promise<number>;
  /** Copies every blob of run `from` to run `to` (a fork's own copy of its source's images); returns how many. */
  copyRun(from: string, to: string): Promise<number>;
  /** The keys stored for the run (for tests and operators). */
  list(runId: string): Promise<string[]>;
};

const runPrefix = (runId: string) => `runs/${runId}/`;
export const imageKey = (runId: string, hash: string) => `${runPrefix(runId)}images/${hash}`;

/** R2 deletes at most this many keys per call. */
const DELETE_BATCH = 1000;

export function r2BlobStore(bucket: R2Bucket): BlobStore {
  async function list(runId: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix: runPrefix(runId), ...(cursor === undefined ? {} : { cursor }) });
      keys.push(...page.objects.map((object) => object.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return keys;
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
    async deleteRun(runId) {
      const keys = await list(runId);
      for (let at = 0; at < keys.length; at += DELETE_BATCH) await bucket.delete(keys.slice(at, at + DELETE_BATCH));
      return keys.length;
    },
    async copyRun(from, to) {
      const keys = await list(from);
      await Promise.all(
        keys.map(async (key) => {
          const object = await bucket.get(key);
          if (object === null) return;
          await bucket.put(runPrefix(to) + key.slice(runPrefix(from).length), await object.arrayBuffer(), object.httpMetadata === undefined ? {} : { httpMetadata: object.httpMetadata });
        }),
      );
      return keys.length;
    },
    list,
  };
}

/**
 * Stores an upload's images for run `runId`, or returns the issues of images it names by hash
 * that neither it nor the run's store holds (then nothing is stored).
 */
export async function acceptImages(store: BlobStore, runId: string, upload: ImageUpload): Promise<Issue[]> {
  const outside = outsideReferences(upload);
  if (outside.length > 0) {
    const missing = new Set(await store.missingImages(runId, outside.map((reference) => reference.hash)));
    const issues = outside.filter((reference) => missing.has(reference.hash)).map((reference) => ({ path: reference.path, message: MISSING_IMAGE }));
    if (issues.length > 0) return issues;
  }
  await store.putImages(runId, upload.images);
  return [];
}
