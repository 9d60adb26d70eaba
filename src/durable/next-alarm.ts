// When a run object wakes up next (pure). One alarm serves three purposes: stepping a running run
// (now), delivering its outbox (the earliest pending row's time) and deleting a stopped run when its
// retention ends. The earliest wins; whatever is not due when the alarm fires sets the next one.

export type AlarmInputs = {
  /** The run is running: it steps at once. */
  running: boolean;
  /** The earliest pending outbox row's time, if any row is pending. */
  outboxDueAt?: number | undefined;
  /** A stopped run's retention end (ignored while it runs). */
  deleteAt?: number | undefined;
  now: number;
  /** ALARM_DELAY_MS: "at once" means this long from now (0 in service; the tests set it far off and fire alarms by hand). */
  delayMs: number;
};

/** When to set the alarm, or undefined when the object has nothing left to do. */
export function nextAlarm({ running, outboxDueAt, deleteAt, now, delayMs }: AlarmInputs): number | undefined {
  const soonest = now + delayMs;
  const candidates: number[] = [];
  if (running) candidates.push(soonest);
  if (outboxDueAt !== undefined) candidates.push(Math.max(outboxDueAt, soonest));
  if (!running && deleteAt !== undefined) candidates.push(deleteAt);
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}
