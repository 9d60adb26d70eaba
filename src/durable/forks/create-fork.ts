// A fork's creation, in the fork's own object. Like a run's creation (create-run.ts): an
// Idempotency-Key sent again finds the fork it made; a fork of a subject reserves its budget first.
// Its source's images and the added messages' are counted first (RUN_IMAGE_BYTES_LIMIT: 413, and
// nothing is reserved or stored). Then its source's images are copied into its own blobs (a run
// reads only its own), the added messages' images stored, and in one transaction its row, its
// images' count, the prefix's segments and journal rows (as the source packed them:
// journal-copy.ts), its fork row and its first change: a crash before that transaction leaves only
// blobs that the same request, sent again, writes again; a crash after it leaves a run whose alarm
// a read re-arms.
import type { ForkCopy, ForkSpec } from "../../api/rpc/fork-rpc";
import type { ImageUpload } from "../../api/images/images";
import type { NewRun, Outcome, RunView } from "../../api/types";
import { acceptImages } from "../blobs/blob-store";
import { newRunImagesRefusal } from "../blobs/image-cap";
import { heldImagesOf, recordImages } from "../blobs/image-index";
import { limitsOf } from "../../config/settings";
import { insertCompactionRequests } from "../engine/incoming/compaction-request-store";
import { insertPackedJournal } from "../engine/journal/journal-copy";
import { isoNow } from "../storage/clock";
import { insertReplay } from "../evals/cases/replay-store";
import { insertTrace } from "../telemetry/trace-store";
import { createReserved, earlierCreate, madeRun, type Creator } from "../run/lifecycle/create-run";
import { forkPlan } from "./fork-plan";
import { insertFork } from "./fork-store";
import { invalidImages } from "../run/outcome";
import { insertRun } from "../run/store/run-store";
import { insertSegment, saveSegmentResult } from "../run/store/segment-store";
import { spendAskOf } from "../inbox/spend-reservation";

/** For crash tests: called between the fork's steps ("blobs": its images are stored, its transaction not yet run). */
export type ForkCrashPoint = (point: "blobs") => void;

export async function createFork(creator: Creator, run: NewRun, prefix: ForkCopy, spec: ForkSpec, images: ImageUpload, crashAt?: ForkCrashPoint): Promise<Outcome<RunView>> {
  const { engine, blobs } = creator;
  const { sql } = engine.ctx.storage;
  const earlier = earlierCreate(sql, run);
  if (earlier !== undefined) return earlier;
  const copied = await blobs.listImages(prefix.runId);
  const added = heldImagesOf(images.images);
  const tooLarge = newRunImagesRefusal(added, limitsOf(engine.env).runImageBytes, copied);
  if (tooLarge !== undefined) return tooLarge;
  const spend = run.subject === undefined ? undefined : spendAskOf(engine.env, run, run.subject, 1, run.dayLimitUsd);
  return createReserved(creator, spend, async () => {
    await blobs.copyImages(prefix.runId, run.id, copied);
    const issues = await acceptImages(blobs, run.id, images);
    if (issues.length > 0) return invalidImages(issues);
    crashAt?.("blobs");
    const plan = forkPlan(prefix, spec, run.body.budget?.spentUsd ?? 0);
    return madeRun(engine, () => {
      insertRun(sql, run, isoNow(), plan.start);
      if (run.replay !== undefined) insertReplay(sql, run.replay);
      recordImages(sql, [...copied, ...added]);
      for (const segment of plan.segments) {
        insertSegment(sql, segment);
        if (segment.result !== undefined) saveSegmentResult(sql, segment.n, segment.result);
      }
      insertPackedJournal(sql, prefix.journal);
      insertCompactionRequests(sql, prefix.compactionRequests);
      insertFork(sql, { runId: prefix.runId, step: prefix.atStep }, prefix.inheritedUsd);
      // A fork is a trace of its own (docs/traces.md), as any new run is.
      insertTrace(sql, run.id, run.traceParent, run.parentLink, Date.now());
    });
  });
}
