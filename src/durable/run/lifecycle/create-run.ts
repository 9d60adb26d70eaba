// A run's creation. The Idempotency-Key names the object, so a request sent again finds the run it
// made (or a 409 when the body or the token differs, or the run was deleted). A run of a subject
// reserves its budget under the subject's spend limit first, so a run that does not fit leaves
// nothing behind (nor one whose images are past RUN_IMAGE_BYTES_LIMIT, refused before that); its
// images are stored next, then its row, its images' count and first change in one transaction.
import type { ImageUpload } from "../../../api/images/images";
import type { NewRun, Outcome, RunView } from "../../../api/types";
import { acceptImages, type BlobStore } from "../../blobs/blob-store";
import { newRunImagesRefusal } from "../../blobs/image-cap";
import { heldImagesOf, recordImages, RUN_IMAGE_TABLE } from "../../blobs/image-index";
import { limitsOf } from "../../../config/settings";
import type { EngineContext } from "../../engine/engine-context";
import { emitEvent } from "../../events/log/emit-event";
import { reportChange } from "../../outbox/report-change";
import { isoNow } from "../../storage/clock";
import { insertReplay, markNoReplay } from "../../evals/cases/replay-store";
import { markNotFork } from "../../forks/fork-store";
import { markNoChildren } from "../../children/child-store";
import { fail, invalidImages, ok } from "../outcome";
import { insertedRunCore, insertRun, readRun, type InsertedRun, type RunRow } from "../store/run-store";
import { toRunView } from "../store/run-view";
import { makeRun, runPresence } from "../schema";
import { rememberSeq } from "../../events/log/event-log";
import { dropSpend, reserveSpend, spendAskOf, type SpendAsk } from "../../inbox/spend-reservation";
import { insertTrace } from "../../telemetry/trace-store";
import { writeSpendDay } from "../../inbox/spend-day";

/** What a creation needs of the object: the engine's context, the blob store and how to set the alarm. */
export type Creator = { engine: EngineContext; blobs: BlobStore; schedule: () => Promise<void> };

/** A create sent again (its Idempotency-Key names this object): the run it made, or a 409; undefined when no run was made here. */
export function earlierCreate(sql: SqlStorage, run: NewRun): Outcome<RunView> | undefined {
  const here = runPresence(sql);
  if (here.deleted) return fail(409, "The run made with this Idempotency-Key was deleted; its id is not used again.");
  if (!here.run) return undefined;
  const existing = readRun(sql);
  if (existing === undefined) return undefined;
  if (existing.bodyHash !== run.bodyHash) return fail(409, "This Idempotency-Key was used for a different request.");
  if (existing.tokenHash !== run.tokenHash) {
    return fail(409, "The run made with this Idempotency-Key has a new token since (POST /v1/runs/{id}/token); the first one is void.");
  }
  return ok(toRunView(existing));
}

export async function createRun(creator: Creator, run: NewRun, images: ImageUpload): Promise<Outcome<RunView>> {
  const { engine, blobs } = creator;
  const { sql } = engine.ctx.storage;
  const earlier = earlierCreate(sql, run);
  if (earlier !== undefined) return earlier;
  // A child run's budget comes out of its parent's, reserved when the parent was made: it reserves nothing more.
  const held = heldImagesOf(images.images);
  const tooLarge = newRunImagesRefusal(held, limitsOf(engine.env).runImageBytes);
  if (tooLarge !== undefined) return tooLarge;
  const spend = run.subject === undefined || run.parentId !== undefined ? undefined : spendAskOf(engine.env, run, run.subject, 1, run.dayLimitUsd);
  return createReserved(creator, spend, async () => {
    const issues = await acceptImages(blobs, run.id, images);
    if (issues.length > 0) return invalidImages(issues);
    let inserted: InsertedRun | undefined;
    return madeRun(
      engine,
      () => {
        inserted = insertRun(sql, run, isoNow());
        // What a new run is known to lack, remembered now rather than looked for (a rollback leaves
        // a database with none of it either).
        markNotFork(sql);
        markNoChildren(sql);
        if (run.replay !== undefined) insertReplay(sql, run.replay);
        else markNoReplay(sql);
        // The index's table is made with the others (RUN_IMAGE_TABLE below): only images are written here.
        if (held.length > 0) recordImages(sql, held);
        insertTrace(sql, run.id, run.traceParent, run.parentLink, Date.now());
      },
      (sql) => newRunRow(sql, inserted!),
      [RUN_IMAGE_TABLE],
    );
  });
}

/**
 * The row of a run createRun's store just made, as its insert answered it (nothing wrote the row
 * since): no async call, waiting message, event or outbox row is there yet (its first event and
 * change come after), so the view's parts are known without asking storage for them.
 */
function newRunRow(sql: SqlStorage, inserted: InsertedRun): RunRow {
  return { ...insertedRunCore(sql, inserted), pending: [], queuedMessages: 0, lastSeq: 0, webhooks: [] };
}

/**
 * Makes the run's tables (and `extra`) and stores what `store` writes, then its first change, in one
 * transaction (makeRun); the run's row as it was made (`read`), read once for the change and the
 * creation's answer. Called outside any transaction.
 */
export function madeRun(engine: EngineContext, store: () => void, read: (sql: SqlStorage) => RunRow = (sql) => readRun(sql)!, extra: readonly string[] = []): RunRow {
  const { sql } = engine.ctx.storage;
  let made: RunRow | undefined;
  makeRun(
    engine.ctx.storage,
    () => {
      store();
      made = read(sql);
      reportChange(engine, "run-started", {}, made);
    },
    extra,
  );
  // Committed (this is outside any transaction): the newest seq as the row says, so the run's first event need not ask for it.
  rememberSeq(sql, made!.lastSeq);
  return made!;
}

/**
 * A new run made under its subject's spend limit: the reservation first, so a run that does not fit
 * leaves nothing behind; then `make` stores the run (answering a refusal, or the run's row as it
 * made it: madeRun) — a refusal or a throw drops the reservation; then the run's first event and its alarm.
 */
export async function createReserved({ engine, schedule }: Creator, spend: SpendAsk | undefined, make: () => Promise<Outcome<RunView> | RunRow>): Promise<Outcome<RunView>> {
  const { env } = engine;
  let day: string | undefined;
  if (spend !== undefined) {
    const reserved = await reserveSpend(env, spend);
    if (!reserved.ok) return reserved;
    day = reserved.value.day;
  }
  let made: RunRow;
  try {
    const answer = await make();
    if ("ok" in answer) {
      if (spend !== undefined) await dropSpend(env, spend);
      return answer;
    }
    made = answer;
  } catch (error) {
    if (spend !== undefined) await dropSpend(env, spend);
    throw error;
  }
  // The day the run spends on until it goes on on a later one (spend-day.ts).
  if (day !== undefined) writeSpendDay(engine.ctx.storage.sql, day);
  // The view after its first event (which it names): what the creation answers too. The spend day is not in it.
  const started = { ...toRunView(made), lastSeq: 1 };
  emitEvent(engine, { type: "run-started", run: started });
  await schedule();
  return ok(started);
}
