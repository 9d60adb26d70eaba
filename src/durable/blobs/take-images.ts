// How a run that exists takes a request that may bring images (an answer, a message, a continue):
// the run decides first, then the images are counted, then uploaded, then the content that names
// them is stored. In order, each step answering alone when it refuses, with nothing stored:
//
// 1. `instead`: what the run answers without taking the content (a call it does not wait on, a
//    queue that is full, …; or a repeat of an answer, which changes nothing).
// 2. The images named by hash only must be among the run's blobs (400).
// 3. The cap (image-cap.ts): 413 past RUN_IMAGE_BYTES_LIMIT. An older run's count is built first.
// 4. `before` (a continue's spend reservation): its refusal stores nothing either. The cap is asked
//    again after it, where step 5 counts.
// 5. The new images' rows, written with the check in one synchronous step (two requests cannot
//    both fit in the room of one), then their bytes uploaded.
// 6. `change`: the content stored, in one transaction, its state checked again.
//
// Crash points: after 5's rows and before the upload, the rows count images that are not stored
// and that nothing names (step 2 asks the blobs, not the rows); the same request sent again
// counts nothing more and uploads them. After the upload and before 6 (or a `change` that refuses
// because the run moved meanwhile), the blobs are counted and named by nothing: garbage under the
// run's prefix, deleted with the run at its deletion or the end of its retention. A content is
// never stored before its images.
import type { ImageUpload, PendingImage } from "../../api/images/images";
import type { Outcome } from "../../api/types";
import { invalidImages } from "../run/outcome";
import { missingReferences, type BlobStore } from "./blob-store";
import { countImages, imagesRefusal } from "./image-cap";
import { ensureImageIndex, heldImagesOf, recordImages } from "./image-index";

export type ImageTaker = { storage: DurableObjectStorage; blobs: BlobStore; runId: string; limitBytes: number };

export type TakeSteps<T> = {
  /** The answer without taking the content (a refusal, or a repeat), or undefined to go on. */
  instead: () => Outcome<T> | undefined;
  /** Asked after the checks and before anything is stored; a failure is the answer. */
  before?: () => Promise<Outcome<unknown> | undefined>;
  /** Stores the content (synchronously, its state checked again). */
  change: () => Outcome<T>;
};

/** For crash tests: called after the images' rows were written ("counted") and after their upload ("uploaded"). */
export type ImageCrashPoint = (point: "counted" | "uploaded") => void;

export async function takeImages<T>(taker: ImageTaker, upload: ImageUpload, steps: TakeSteps<T>, crashAt?: ImageCrashPoint): Promise<Outcome<T>> {
  const { storage, blobs, runId, limitBytes } = taker;
  const early = steps.instead();
  if (early !== undefined) return early;
  if (upload.references.length > 0) {
    const issues = await missingReferences(blobs, runId, upload);
    if (issues.length > 0) return invalidImages(issues);
  }
  const images = heldImagesOf(upload.images);
  if (images.length > 0) await ensureImageIndex(storage, blobs, runId);
  if (steps.before !== undefined) {
    const refused = imagesRefusal(storage.sql, images, limitBytes);
    if (refused !== undefined) return refused;
    const before = await steps.before();
    if (before !== undefined && !before.ok) return before;
  }
  if (images.length > 0) {
    const refused = storage.transactionSync(() => countImages(storage.sql, images, limitBytes));
    if (refused !== undefined) return refused;
    crashAt?.("counted");
    await blobs.putImages(runId, upload.images);
    crashAt?.("uploaded");
  }
  return steps.change();
}

/** Images the run's own tools return (an MCP tool's result): counted as any image, before their upload, but never refused. */
export async function storeToolImages(taker: Omit<ImageTaker, "limitBytes">, images: readonly PendingImage[]): Promise<void> {
  const { storage, blobs, runId } = taker;
  await ensureImageIndex(storage, blobs, runId);
  storage.transactionSync(() => recordImages(storage.sql, heldImagesOf(images)));
  await blobs.putImages(runId, images);
}
