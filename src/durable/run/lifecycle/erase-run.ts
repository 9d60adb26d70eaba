// A run's deletion (DELETE /v1/runs/:id, or its retention's end): its blobs, its watchers and every
// table go, leaving a tombstone so that the id is never used again (schema.ts).
import type { BlobStore } from "../../blobs/blob-store";
import type { EngineContext } from "../../engine/engine-context";
import { reportChange } from "../../outbox/report-change";
import { isoNow } from "../../storage/clock";
import { logRunDeleted } from "../operator-log";
import { dropRun } from "../schema";

/**
 * Blobs go first: if that fails the run is still whole and the delete can be tried again. The
 * deletion is the run's last change: reported in the same transaction, it stays in the
 * tombstone's outbox until the subject's inbox took it (then the outbox and the alarm go).
 */
export async function eraseRun(engine: EngineContext, blobs: BlobStore, runId: string, reason: "request" | "retention"): Promise<void> {
  await engine.mcp?.close();
  const deleted = await blobs.deleteRun(runId);
  engine.fanout.close("The run was deleted.");
  engine.ctx.storage.transactionSync(() => {
    reportChange(engine, "run-deleted");
    dropRun(engine.ctx.storage.sql, isoNow());
  });
  logRunDeleted(runId, reason, deleted);
}
