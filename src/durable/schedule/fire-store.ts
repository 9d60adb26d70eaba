// The schedule's fires (`fire` table): one row per fire, keyed by the idempotency key its run is
// made with ("cron/<ms>", "trigger/<ms>"), and one row per range of fires missed during downtime
// ("missed/<ms>"). A fire is written `pending` before its run is created and moved on once the
// run object answered, so a crash in between leaves a pending row that the next alarm finishes
// with the same key, hence the same run. Settled rows past FIRES_KEPT are dropped; pending and
// queued ones never are.
import type { FireOutcome, ScheduleFire } from "../../api/resources/schedule-types";

export const FIRE_TABLE = `CREATE TABLE IF NOT EXISTS fire (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  run_id TEXT,
  reason TEXT,
  missed INTEGER,
  through INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  day_limit_usd REAL
)`;

/** Columns added after the first release. `day_limit_usd`: a trigger's run is held to the triggering token's daily limit. */
export const FIRE_ADDED_COLUMNS = [{ table: "fire", column: "day_limit_usd", definition: "REAL" }];

/** Settled fire records kept for the view and for the overlap's look at the previous runs. */
export const FIRES_KEPT = 200;
/** Fire records the schedule's view shows. */
export const FIRES_SHOWN = 20;

export type FireKind = "cron" | "trigger";

export type FireRow = {
  key: string;
  kind: FireKind;
  at: number;
  outcome: FireOutcome;
  runId?: string;
  reason?: string;
  missed?: number;
  through?: number;
  attempts: number;
  /** A trigger's: the daily spend limit its run is held to (the triggering token's). */
  dayLimitUsd?: number;
};

export type NewFire = { kind: FireKind; at: number; outcome: FireOutcome; reason?: string; missed?: number; through?: number; dayLimitUsd?: number };

/** The idempotency key of a fire's run: the schedule's fires at one time always make the same run. */
export const fireKey = (kind: FireKind, at: number): string => `${kind}/${at}`;

type Raw = Record<string, SqlStorageValue>;

function rowOf(raw: Raw): FireRow {
  const row: FireRow = {
    key: String(raw.key),
    kind: raw.kind === "trigger" ? "trigger" : "cron",
    at: Number(raw.at),
    outcome: String(raw.outcome) as FireOutcome,
    attempts: Number(raw.attempts),
  };
  if (raw.run_id !== null) row.runId = String(raw.run_id);
  if (raw.reason !== null) row.reason = String(raw.reason);
  if (raw.missed !== null) row.missed = Number(raw.missed);
  if (raw.through !== null) row.through = Number(raw.through);
  if (raw.day_limit_usd !== null && raw.day_limit_usd !== undefined) row.dayLimitUsd = Number(raw.day_limit_usd);
  return row;
}

/** Records a fire (or a missed range, keyed "missed/<first>"); one already recorded under its key stays as it is. Returns its key. */
export function insertFire(sql: SqlStorage, fire: NewFire): string {
  const key = fire.outcome === "missed" ? `missed/${fire.at}` : fireKey(fire.kind, fire.at);
  sql.exec(
    "INSERT INTO fire (key, kind, at, outcome, reason, missed, through, day_limit_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
    key, fire.kind, fire.at, fire.outcome, fire.reason ?? null, fire.missed ?? null, fire.through ?? null, fire.dayLimitUsd ?? null,
  );
  return key;
}

export function readFire(sql: SqlStorage, key: string): FireRow | undefined {
  const raw = sql.exec<Raw>("SELECT * FROM fire WHERE key = ?", key).toArray()[0];
  return raw === undefined ? undefined : rowOf(raw);
}

/** A fire's run was created (`started`), or will not be (`failed`, with why, or `skipped`); a queued fire becomes pending when it may start. */
export function settleFire(sql: SqlStorage, key: string, outcome: "pending" | "started" | "failed" | "skipped", detail: { runId?: string; reason?: string } = {}): void {
  sql.exec("UPDATE fire SET outcome = ?, run_id = COALESCE(?, run_id), reason = ? WHERE key = ?", outcome, detail.runId ?? null, detail.reason ?? null, key);
  pruneFires(sql);
}

/** Before an attempt to create a fire's run: counted, and committed before the attempt. Returns the attempt's number. */
export function countAttempt(sql: SqlStorage, key: string): number {
  return Number(sql.exec<{ attempts: number }>("UPDATE fire SET attempts = attempts + 1 WHERE key = ? RETURNING attempts", key).one().attempts);
}

/** The reason of the last failed attempt, kept on a pending row until it settles. */
export function noteAttemptError(sql: SqlStorage, key: string, error: string): void {
  sql.exec("UPDATE fire SET reason = ? WHERE key = ?", error, key);
}

export function firesIn(sql: SqlStorage, outcome: "pending" | "queued"): FireRow[] {
  return sql.exec<Raw>("SELECT * FROM fire WHERE outcome = ? ORDER BY seq", outcome).toArray().map(rowOf);
}

/** The runs of the newest fires that made one, newest first. */
export function newestRunIds(sql: SqlStorage, limit: number): string[] {
  return sql
    .exec<{ run_id: string }>("SELECT run_id FROM fire WHERE run_id IS NOT NULL ORDER BY seq DESC LIMIT ?", limit)
    .toArray()
    .map((row) => row.run_id);
}

/** The newest fire records, newest first, as the view shows them. */
export function newestFires(sql: SqlStorage, limit = FIRES_SHOWN): ScheduleFire[] {
  return sql
    .exec<Raw>("SELECT * FROM fire ORDER BY seq DESC LIMIT ?", limit)
    .toArray()
    .map(rowOf)
    .map((row) => {
      const fire: ScheduleFire = { at: new Date(row.at).toISOString(), kind: row.kind, outcome: row.outcome };
      if (row.runId !== undefined) fire.runId = row.runId;
      if (row.reason !== undefined && row.outcome !== "started") fire.reason = row.reason;
      if (row.missed !== undefined) fire.missed = row.missed;
      if (row.through !== undefined) fire.through = new Date(row.through).toISOString();
      return fire;
    });
}

function pruneFires(sql: SqlStorage): void {
  sql.exec(
    `DELETE FROM fire WHERE outcome NOT IN ('pending', 'queued') AND seq NOT IN
       (SELECT seq FROM fire WHERE outcome NOT IN ('pending', 'queued') ORDER BY seq DESC LIMIT ?)`,
    FIRES_KEPT,
  );
}
