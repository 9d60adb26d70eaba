// The images a run's blobs hold, one row per content hash with its size (`run_image` table): what
// RUN_IMAGE_BYTES_LIMIT caps (image-cap.ts). The same image sent twice is one row, as it is one
// blob. A row is written before its bytes are uploaded, never after, so the rows are never fewer
// than the blobs: a crash between the two leaves a row for an image that is not uploaded (counted,
// and named by nothing: a content names an image only once it is stored). This module alone reads
// and writes the table.
//
// The table's presence says it is complete. A new run makes it in its creation's transaction. A run
// made before there was one gets it from its blobs themselves (one listing, with their sizes) the
// first time it takes an image: the listing is read first, the table made from it in one
// synchronous write, and a build that made it meanwhile stands.
import type { PendingImage } from "../../api/images/images";
import { tableExists } from "../storage/sqlite-tables";
import type { BlobStore, HeldImage } from "./blob-store";

/** Made by a new run's creation with its other tables, in one call (schema.ts makeRun's `extra`), or by recordImages. */
export const RUN_IMAGE_TABLE = "CREATE TABLE IF NOT EXISTS run_image (hash TEXT PRIMARY KEY, bytes INTEGER NOT NULL)";

/** Each image of `images` once, with its size. */
export function heldImagesOf(images: readonly PendingImage[]): HeldImage[] {
  const unique = new Map(images.map((image) => [image.hash, image.bytes.byteLength]));
  return [...unique].map(([hash, bytes]) => ({ hash, bytes }));
}

/** Counts `images` as held (the table made if need be): each hash once, a known one left as it is. */
export function recordImages(sql: SqlStorage, images: readonly HeldImage[]): void {
  sql.exec(RUN_IMAGE_TABLE);
  for (const image of images) sql.exec("INSERT OR IGNORE INTO run_image (hash, bytes) VALUES (?, ?)", image.hash, image.bytes);
}

/** Bytes of the images the run holds in all (0 for a run whose index is not built). */
export function heldImageBytes(sql: SqlStorage): number {
  if (!tableExists(sql, "run_image")) return 0;
  return Number(sql.exec<{ bytes: number | null }>("SELECT SUM(bytes) AS bytes FROM run_image").one().bytes ?? 0);
}

/** Of `images`, those the run does not hold yet. */
export function unheldImages(sql: SqlStorage, images: readonly HeldImage[]): HeldImage[] {
  if (!tableExists(sql, "run_image")) return [...images];
  return images.filter((image) => sql.exec("SELECT 1 FROM run_image WHERE hash = ?", image.hash).toArray().length === 0);
}

/** Makes the run's index from its blobs if it has none (a run made before the index). */
export async function ensureImageIndex(storage: DurableObjectStorage, blobs: BlobStore, runId: string): Promise<void> {
  const { sql } = storage;
  if (tableExists(sql, "run_image")) return;
  const stored = await blobs.listImages(runId);
  storage.transactionSync(() => {
    if (!tableExists(sql, "run_image")) recordImages(sql, stored);
  });
}
