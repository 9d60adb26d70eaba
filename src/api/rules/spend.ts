// Spend per subject (docs/api.md "Spend per subject"): what all runs of one subject may reserve in a
// UTC day. A run of a subject reserves its whole budget when it is created (and again when a
// continue or a retry sets it running, and when it goes on on a later UTC day than its reservation
// was made: money is charged to the day it is spent), in the subject's inbox object; the unspent
// rest returns when the run ends. Money is counted in whole micro-dollars, so sums are exact. Pure: the types
// the edge, the run object and the inbox share, and the rules of a day.

/** One reservation: `key` is the run's change version that starts it (1 at creation), so a retried reserve is the same one. */
export type Reservation = {
  runId: string;
  key: number;
  /** What the run may still spend: its budget less what it spent before. */
  usd: number;
  /** The run's spend when the reservation was made: what it spends under it is measured from here. */
  spentBeforeUsd: number;
  /** The subject's daily limit this reservation is checked against. */
  limitUsd: number;
  /**
   * A run that goes on on a later day than its reservation's (spend-day.ts): the run's holds of
   * earlier keys are released in the same transaction, each counting what the run spent under it
   * (up to `spentBeforeUsd`) on its own day, and this one, which the run itself asks for, counts
   * at once (no change of the run needs to confirm it).
   */
  rollsOver?: true;
};

/** GET /v1/usage. */
export type Usage = {
  subject: string;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  limitUsd: number;
  /** Budgets held by runs of today that have not ended. */
  reservedUsd: number;
  /** What runs of today that ended spent. */
  spentUsd: number;
  leftUsd: number;
  /** When the day ends (ISO 8601). */
  resetsAt: string;
};

/** `day`: the UTC day the hold is charged to (an earlier one when it was held already, under its key, on that day). */
export type ReserveAnswer = { ok: true; usage: Usage; day: string } | { ok: false; usage: Usage };

const DAY_MS = 24 * 3600 * 1000;

export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/** Dollars as whole micro-dollars. */
export function toMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}

export function fromMicros(micros: number): number {
  return micros / 1_000_000;
}

/** `$1.234567` with the cents always shown. */
export function dollars(usd: number): string {
  const fixed = usd.toFixed(6).replace(/0{1,4}$/, "");
  return `$${fixed}`;
}

/** The setting a subject's daily limit comes from (a user token may set a lower one for its own runs). */
export const SUBJECT_BUDGET_SETTING = "SUBJECT_BUDGET_USD_PER_DAY";

/** What the 402 says: what was asked, what is left, when it resets. */
export function spendLimitMessage(wantedUsd: number, usage: Usage): string {
  return (
    `Spend limit: this run would reserve ${dollars(wantedUsd)} (its budget), but the runs of this subject have ${dollars(usage.leftUsd)} left ` +
    `of ${dollars(usage.limitUsd)} today (${SUBJECT_BUDGET_SETTING}, or the user token's budgetUsdPerDay); the day resets on ${usage.resetsAt}.`
  );
}
