// When a run object wakes up next (pure): one decision from what the run holds, so every path that
// sets an alarm (creation, an answer, a slice's end, a tool's callback, an outbox delivery, a lost
// alarm) sets the same. One alarm serves every purpose; the earliest wins, and whatever is not due
// when it fires sets the next one.
//
// - A running run steps now (plus ALARM_DELAY_MS, which only tests set) — unless its last slice was
//   suspended on an async tool call without a result: then it sleeps until that call's deadline (no
//   alarm fires while it waits, and the object can be evicted). The callback that brings the result
//   wakes it; the deadline wakes it to give the model the "did not answer" error. An agent call's
//   child run has no deadline (Infinity): only the child's end report wakes the run.
// - The outbox (status changes for the inbox and the webhook receivers) is delivered when its
//   earliest pending row is due.
// - A stopped run wakes once more, when its retention ends (deleteAt).
// - Watchers opened with a user token are looked at when one's token may have ended (its expiry,
//   or a minute on while it was signed by a key that may be rotated out).

export type AlarmInputs = {
  /** The run is running: it steps at once (or sleeps on its async call). */
  running: boolean;
  /** The async call the last slice was suspended on, as stored now; undefined when it was not suspended. */
  suspendedOn?: { deadline: number; answered: boolean } | undefined;
  /** The earliest pending outbox row's time, if any row is pending. */
  outboxDueAt?: number | undefined;
  /** A stopped run's retention end (ignored while it runs). */
  deleteAt?: number | undefined;
  /** When the watchers' user tokens must be looked at next (watcher-tokens.ts), if any watcher has one. */
  watchersCheckAt?: number | undefined;
  now: number;
  /** ALARM_DELAY_MS: "at once" means this long from now (0 in service; the tests set it far off and fire alarms by hand). */
  delayMs: number;
};

/** What stepDue decides from (AlarmInputs' first part). */
export type StepInputs = Pick<AlarmInputs, "running" | "suspendedOn" | "now">;

/** When a running run steps next: now, or its unanswered async call's deadline. */
function stepAt({ suspendedOn, now, delayMs }: AlarmInputs): number {
  // A result stored while the slice was ending is taken now, not at the deadline.
  if (suspendedOn !== undefined && !suspendedOn.answered) return Math.max(suspendedOn.deadline, now);
  return now + delayMs;
}

/**
 * Whether an alarm that fired now should step the run: a running run not waiting on an async call,
 * or whose call has its result or passed its deadline. (An alarm for the outbox alone takes no step.)
 */
export function stepDue({ running, suspendedOn, now }: StepInputs & Partial<AlarmInputs>): boolean {
  if (!running) return false;
  return suspendedOn === undefined || suspendedOn.answered || now >= suspendedOn.deadline;
}

/** When to set the alarm, or undefined when the object has nothing left to do. */
export function nextAlarm(inputs: AlarmInputs): number | undefined {
  const { running, outboxDueAt, deleteAt, watchersCheckAt, now, delayMs } = inputs;
  const candidates: number[] = [];
  if (watchersCheckAt !== undefined) candidates.push(watchersCheckAt);
  if (running) {
    const at = stepAt(inputs);
    if (Number.isFinite(at)) candidates.push(at);
  }
  if (outboxDueAt !== undefined) candidates.push(Math.max(outboxDueAt, now + delayMs));
  if (!running && deleteAt !== undefined) candidates.push(deleteAt);
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}
