// RUN_IMAGE_BYTES_LIMIT: the bytes of images one run may hold, each image once (by content hash),
// whichever door brought it: a create, a fork (its source's images with its own), an answer, a
// message, a continue. One more image past it is a 413 `too-large` naming the setting, and nothing
// of that request is stored. Images the run's MCP tools return are counted as well, never refused
// (a tool's result is not a door): a run they brought past the cap takes no more images by a door.
import { fail, type Failure } from "../run/outcome";
import type { HeldImage } from "./blob-store";
import { heldImageBytes, recordImages, unheldImages } from "./image-index";

const sum = (images: readonly HeldImage[]) => images.reduce((total, image) => total + image.bytes, 0);

/** The 413 for `adding` more bytes of images on a run that holds `held`, or undefined when they fit (nothing new always fits). */
export function imageCapRefusal(held: number, adding: number, limit: number): Failure | undefined {
  if (adding === 0 || held + adding <= limit) return undefined;
  return fail(
    413,
    `The run's images would hold ${held + adding} bytes, past this deployment's ${limit} per run (RUN_IMAGE_BYTES_LIMIT): it holds ${held} bytes of images, and this request brings ${adding} more. Nothing of it was stored.`,
  );
}

/** The 413 for a new run's images (a fork's: those of its source, `copied`, with its own), or undefined. */
export function newRunImagesRefusal(images: readonly HeldImage[], limit: number, copied: readonly HeldImage[] = []): Failure | undefined {
  const known = new Set(copied.map((image) => image.hash));
  return imageCapRefusal(sum(copied), sum(images.filter((image) => !known.has(image.hash))), limit);
}

/** The 413 for `images` on this run (those it holds already count nothing), or undefined: nothing is written. */
export function imagesRefusal(sql: SqlStorage, images: readonly HeldImage[], limit: number): Failure | undefined {
  return imageCapRefusal(heldImageBytes(sql), sum(unheldImages(sql, images)), limit);
}

/** The same check, and when the images fit their rows written in the same synchronous step (counted before they are uploaded). */
export function countImages(sql: SqlStorage, images: readonly HeldImage[], limit: number): Failure | undefined {
  const refused = imagesRefusal(sql, images, limit);
  if (refused === undefined) recordImages(sql, images);
  return refused;
}
