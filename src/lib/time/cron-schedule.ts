// A schedule's clock (pure): its cron expression and time zone, read with croner (dependency-free,
// no timers unless given a function, so it runs unchanged in workerd). Five fields (minute hour
// day-of-month month day-of-week) or six (seconds first); time zones by IANA name. Times are ms
// since the epoch; a fire time is always a whole second.
import { Cron } from "croner";

export type Issue = { path: string; message: string };

/** How many fire times are sampled to find the shortest gap between two fires. */
const GAP_SAMPLES = 50;

/** At most this many due fires are counted one by one; past it the count is "at least". */
export const DUE_COUNT_LIMIT = 1_000;

export const DEFAULT_TIMEZONE = "UTC";

function cronOf(cron: string, timezone: string): Cron {
  return new Cron(cron, { timezone, mode: "5-or-6-parts" });
}

/** Whether `timezone` is an IANA time zone name this runtime knows. */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with a schedule's clock, each issue at `cron` or `timezone`: a pattern croner
 * refuses, a zone the runtime does not know, a pattern that never fires, or two fires closer
 * than `minSeconds` (SCHEDULE_MIN_SECONDS).
 */
export function scheduleIssues(cron: string, timezone: string, minSeconds: number, now: number): Issue[] {
  if (!isTimeZone(timezone)) return [{ path: "timezone", message: `Not an IANA time zone name (such as Europe/Paris or UTC): ${JSON.stringify(timezone)}.` }];
  let parsed: Cron;
  try {
    parsed = cronOf(cron, timezone);
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    return [{ path: "cron", message: `Not a cron expression of five or six fields: ${detail}` }];
  }
  let runs: number[];
  try {
    runs = parsed.nextRuns(GAP_SAMPLES, new Date(now)).map((date) => date.getTime());
  } catch (error) {
    return [{ path: "cron", message: `This expression cannot be read in ${timezone}: ${error instanceof Error ? error.message : String(error)}` }];
  }
  if (runs.length === 0) return [{ path: "cron", message: "This expression never fires." }];
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i]! - runs[i - 1]!);
  if (gap < minSeconds * 1000) {
    return [{ path: "cron", message: `Fires ${gap / 1000} s apart; at least ${minSeconds} s on this deployment (SCHEDULE_MIN_SECONDS).` }];
  }
  return [];
}

/** The first fire time strictly after `after`, or undefined when the expression fires no more. */
export function nextFire(cron: string, timezone: string, after: number): number | undefined {
  return cronOf(cron, timezone).nextRun(new Date(after))?.getTime();
}

/** The fires due in (after, now]: how many, the first, the newest, and the one before the newest. */
export type DueFires = {
  count: number;
  /** More were due than DUE_COUNT_LIMIT: `count` is a lower bound. */
  atLeast: boolean;
  first: number;
  latest: number;
  /** The fire before `latest`, when more than one is due. */
  beforeLatest?: number;
};

export function dueFires(cron: string, timezone: string, after: number, now: number): DueFires | undefined {
  const parsed = cronOf(cron, timezone);
  const first = parsed.nextRun(new Date(after))?.getTime();
  if (first === undefined || first > now) return undefined;
  let count = 1;
  let latest = first;
  let beforeLatest: number | undefined;
  for (;;) {
    const next = parsed.nextRun(new Date(latest))?.getTime();
    if (next === undefined || next > now) break;
    if (count >= DUE_COUNT_LIMIT) {
      // A long downtime on a fast schedule: the newest two are looked up from the end instead.
      const [newest, before] = parsed.previousRuns(2, new Date(now + 1)).map((date) => date.getTime());
      return { count, atLeast: true, first, latest: newest!, beforeLatest: before! };
    }
    beforeLatest = latest;
    latest = next;
    count++;
  }
  const due: DueFires = { count, atLeast: false, first, latest };
  if (beforeLatest !== undefined) due.beforeLatest = beforeLatest;
  return due;
}
