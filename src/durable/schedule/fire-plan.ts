// What a schedule's alarm does with the fires that came due since it last looked (pure). Normally
// one fire is due and it fires. After downtime (the object or the platform was away past a fire)
// several may be due, or the one due is late:
//
//   catchUp "one"   one run, for the newest fire due; the fires before it are recorded as missed
//                   (the run stands for them too).
//   catchUp "none"  no run for missed fires: the fires before the newest are missed, and so is the
//                   newest unless it is on time (at most FIRE_GRACE_MS late), which then fires.
//
// Overlap is decided apart (./overlap.ts), once the fire is known.
import type { CatchUp } from "../../api/resources/schedule-types";
import type { DueFires } from "../../lib/time/cron-schedule";

/** How late a fire may be and still count as on time (an alarm is never exactly punctual). */
export const FIRE_GRACE_MS = 60_000;

/** Fires missed during downtime, as one record: the first, the last, and how many. */
export type MissedFires = { first: number; through: number; count: number; atLeast: boolean };

export type FirePlan = { fireAt?: number; missed?: MissedFires };

export function planFires(due: DueFires | undefined, now: number, catchUp: CatchUp): FirePlan {
  if (due === undefined) return {};
  const earlier: MissedFires | undefined =
    due.beforeLatest === undefined ? undefined : { first: due.first, through: due.beforeLatest, count: due.count - 1, atLeast: due.atLeast };
  if (catchUp === "one" || now - due.latest <= FIRE_GRACE_MS) return earlier === undefined ? { fireAt: due.latest } : { fireAt: due.latest, missed: earlier };
  return { missed: { first: due.first, through: due.latest, count: due.count, atLeast: due.atLeast } };
}
