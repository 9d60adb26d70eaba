// A subject's spend in its inbox's SQLite (the `reservation` table): one row per reservation, keyed
// by run id and the run's change version that started it (1 at creation; a continue's or a retry's
// change after that). A reservation is
//
//   held      counted whole (its usd) on the day it was made, until its run ends
//   released  its run ended (or was deleted), or went on on a later day under a new reservation
//             (`rollsOver`): it counts what the run spent under it, on its own day
//
// Reserving is idempotent by key: the same reservation asked for again (a retried create, a crash
// between reserving and creating) is answered as before and counts once. Releasing happens as the
// inbox applies the run's changes (inbox-store.ts), once each, by version: a change confirms the
// holds it follows, and an end or a deletion releases them. A hold no change ever confirmed (the
// creation died after reserving, and was never retried) stops counting after HOLD_UNCONFIRMED_MS;
// should its run show up later after all, its first change confirms it and it counts again.
import { tableExists } from "../storage/sqlite-tables";
import { fromMicros, nextUtcMidnight, toMicros, utcDay, type Reservation, type ReserveAnswer, type Usage } from "../../api/rules/spend";

export const RESERVATION_TABLES = [
  `CREATE TABLE IF NOT EXISTS reservation (
     run_id TEXT NOT NULL,
     key INTEGER NOT NULL,
     day TEXT NOT NULL,
     micros INTEGER NOT NULL,
     spent_before_micros INTEGER NOT NULL,
     spent_micros INTEGER NOT NULL DEFAULT 0,
     state TEXT NOT NULL DEFAULT 'held',
     confirmed INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (run_id, key)
   )`,
  `CREATE INDEX IF NOT EXISTS reservation_day ON reservation (day, state)`,
];

/** A hold no change of its run confirmed stops counting after this long (its creation died). */
export const HOLD_UNCONFIRMED_MS = 10 * 60 * 1000;

const DAY_MS = 24 * 3600 * 1000;

/** The subject's spend today, against `limitUsd`. */
export function usageOf(sql: SqlStorage, subject: string, limitUsd: number, now: number): Usage {
  const day = utcDay(now);
  const row = !tableExists(sql, "reservation")
    ? { reserved: 0, spent: 0 }
    : sql
    .exec<{ reserved: number | null; spent: number | null }>(
      `SELECT
         SUM(CASE WHEN state = 'held' AND (confirmed = 1 OR created_at > ?) THEN micros ELSE 0 END) AS reserved,
         SUM(CASE WHEN state = 'released' THEN spent_micros ELSE 0 END) AS spent
       FROM reservation WHERE day = ?`,
      now - HOLD_UNCONFIRMED_MS,
      day,
    )
    .one();
  const reserved = Number(row.reserved ?? 0);
  const spent = Number(row.spent ?? 0);
  const limit = toMicros(limitUsd);
  return {
    subject,
    day,
    limitUsd: fromMicros(limit),
    reservedUsd: fromMicros(reserved),
    spentUsd: fromMicros(spent),
    leftUsd: fromMicros(Math.max(0, limit - reserved - spent)),
    resetsAt: new Date(nextUtcMidnight(now)).toISOString(),
  };
}

/** Holds `reservation` when it fits what is left today (or was held already under its key). Inside a transaction. */
export function reserve(sql: SqlStorage, subject: string, reservation: Reservation, now: number): ReserveAnswer {
  // Rows of days no listing asks for any more, ended or never confirmed.
  sql.exec("DELETE FROM reservation WHERE day < ? AND (state != 'held' OR confirmed = 0)", utcDay(now - 2 * DAY_MS));
  const held = sql.exec<{ day: string }>("SELECT day FROM reservation WHERE run_id = ? AND key = ?", reservation.runId, reservation.key).toArray()[0];
  if (held !== undefined) return { ok: true, usage: usageOf(sql, subject, reservation.limitUsd, now), day: String(held.day) };
  const usage = usageOf(sql, subject, reservation.limitUsd, now);
  const wanted = toMicros(Math.max(0, reservation.usd));
  if (wanted > toMicros(usage.leftUsd)) return { ok: false, usage };
  const spentBefore = toMicros(reservation.spentBeforeUsd);
  if (reservation.rollsOver === true) {
    // The earlier days keep what the run spent on them; from here on the run spends on this one.
    sql.exec(
      `UPDATE reservation SET state = 'released', confirmed = 1, spent_micros = MAX(0, ? - spent_before_micros)
       WHERE run_id = ? AND key < ? AND state = 'held'`,
      spentBefore, reservation.runId, reservation.key,
    );
  }
  sql.exec(
    "INSERT INTO reservation (run_id, key, day, micros, spent_before_micros, confirmed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    reservation.runId, reservation.key, usage.day, wanted, spentBefore, reservation.rollsOver === true ? 1 : 0, now,
  );
  return { ok: true, usage: usageOf(sql, subject, reservation.limitUsd, now), day: usage.day };
}

/** A creation that failed after reserving gives its hold back at once (unless a change of its run confirmed it). */
export function dropHold(sql: SqlStorage, runId: string, key: number): void {
  sql.exec("DELETE FROM reservation WHERE run_id = ? AND key = ? AND state = 'held' AND confirmed = 0", runId, key);
}

/** How a change of a run moves its reservations: what the inbox applies, in the change's transaction. */
export type SpendChange = { runId: string; version: number; ended: boolean; spentUsd: number };

/**
 * A change of the run confirms its holds up to its version; an end or a deletion releases them,
 * each counting what the run spent since it was made.
 */
export function settle(sql: SqlStorage, change: SpendChange): void {
  sql.exec("UPDATE reservation SET confirmed = 1 WHERE run_id = ? AND key <= ? AND confirmed = 0", change.runId, change.version);
  if (!change.ended) return;
  sql.exec(
    `UPDATE reservation SET state = 'released', spent_micros = MAX(0, ? - spent_before_micros)
     WHERE run_id = ? AND key <= ? AND state = 'held'`,
    toMicros(change.spentUsd), change.runId, change.version,
  );
}
