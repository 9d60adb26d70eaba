// The UTC day a run of a subject spends on (docs/api.md "Spend per subject"): money is charged to
// the day it is spent, not to the day the run was made. The run keeps the day its current
// reservation is charged to (a one-row table of its own); before its alarm steps it on a later
// day — after an answer, a continue, a retry, an async result, or a slice that goes on past
// midnight — it reserves what its budget has left on that day, which releases the earlier day's
// hold with what the run spent on it, or, when the day has no room, it ends `failed` with
// `spend-limit`. So runs held for days and answered together spend one day's limit, not many.
//
// Crash points: the reservation's key is the run's next change version, written (bumped) only
// after the inbox held it; a re-reservation that died before that write asks for the same key
// again, which the inbox answers as held (it counts once), on the day it was held.
import { utcDay } from "../../api/rules/spend";
import type { ApiError, Outcome } from "../../api/types";
import type { EngineContext } from "../engine/engine-context";
import { reserveAgain, reserveSpend, spendAskOf } from "./spend-reservation";
import { recordStop } from "../run/lifecycle/run-stop";
import { tableExists } from "../storage/sqlite-tables";
import { bumpVersion, type RunRow, type RunCore } from "../run/store/run-store";

const TABLE = "CREATE TABLE IF NOT EXISTS spend_day (day TEXT NOT NULL)";

/** The UTC day (YYYY-MM-DD) the run's current reservation is charged to, if it wrote one. */
export function readSpendDay(sql: SqlStorage): string | undefined {
  if (!tableExists(sql, "spend_day")) return undefined;
  const row = sql.exec<{ day: string }>("SELECT day FROM spend_day LIMIT 1").toArray()[0];
  return row === undefined ? undefined : String(row.day);
}

/** After a reservation of the run was held: the day it is charged to. */
export function writeSpendDay(sql: SqlStorage, day: string): void {
  sql.exec(TABLE);
  sql.exec("DELETE FROM spend_day");
  sql.exec("INSERT INTO spend_day (day) VALUES (?)", day);
}

/**
 * Whether the run must reserve again before it steps on `today`: a run of a subject (not a child:
 * its budget is its parent's) whose reservation is of an earlier day. A run that wrote no day
 * (reserved before runs kept one) counts from the day it was made. `spendDay` (a read) is asked only
 * for a run of a subject.
 */
export function mustReserveToday(run: Pick<RunRow, "subject" | "parentId" | "createdAt" | "cancelRequested">, spendDay: () => string | undefined, today: string): boolean {
  if (run.subject === undefined || run.parentId !== undefined || run.cancelRequested) return false;
  return (spendDay() ?? run.createdAt.slice(0, 10)) < today;
}

/** mustReserveToday for `run` now, asked at once (no await): the spend day is read only for a run that has one (a subject's, not a child). */
export function mustReserveNow(engine: EngineContext, run: RunCore): boolean {
  return mustReserveToday(run, () => readSpendDay(engine.ctx.storage.sql), utcDay(engine.now()));
}

/**
 * Before the alarm steps running `run` (as just read): its budget's rest reserved on today's day when its
 * reservation is of an earlier one. Undefined when the run may step; else the error it ends with.
 * An inbox that does not answer throws (the platform delivers the alarm again).
 */
export async function reserveToday(engine: EngineContext, run: RunCore): Promise<ApiError | undefined> {
  const { sql } = engine.ctx.storage;
  if (!mustReserveNow(engine, run)) return undefined;
  const ask = spendAskOf(engine.env, run, run.subject!, run.version + 1, run.dayLimitUsd);
  const reserved = await reserveSpend(engine.env, { ...ask, reservation: { ...ask.reservation, rollsOver: true } });
  if (!reserved.ok) return { code: "spend-limit", message: reserved.error.message, retryable: true };
  engine.ctx.storage.transactionSync(() => {
    // The key is used: the next reservation of this run (a later day, a continue) takes the next.
    bumpVersion(sql);
    writeSpendDay(sql, reserved.value.day);
  });
  return undefined;
}

/**
 * Before a slice: a run that goes on on a later UTC day than its reservation's reserves its
 * budget's rest on this one; where the day has no room it ends `spend-limit`. False: it ended.
 */
export async function spendsToday(engine: EngineContext, run: RunCore): Promise<boolean> {
  const refused = await reserveToday(engine, run);
  if (refused === undefined) return true;
  recordStop(engine, { status: "failed", stoppedBy: "error", error: refused }, "end");
  return false;
}

/** A continue's or a retry's reservation (402 when it does not fit); the day it is charged to is the run's spend day from now on. */
export async function reserveAgainToday(engine: EngineContext, run: RunRow, limitUsd: number | undefined): Promise<Outcome<unknown>> {
  const reserved = await reserveAgain(engine.env, run, limitUsd);
  if (reserved.ok && reserved.value !== null) writeSpendDay(engine.ctx.storage.sql, reserved.value.day);
  return reserved;
}
