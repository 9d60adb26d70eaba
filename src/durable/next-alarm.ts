// When a run's object wakes up next: one pure decision from what the run holds, so every path that
// sets an alarm (creation, an answer, a slice's end, a tool's callback, a lost alarm) sets the same.
//
// - A run that is not running wakes once more, when its retention ends (deleteAt).
// - A running run whose last slice was suspended on an async tool call without a result sleeps
//   until that call's deadline: no alarm fires while it waits, and the object can be evicted. The
//   callback that brings the result wakes it (it sets the alarm for now); the deadline wakes it to
//   give the model the "did not answer" error.
// - Any other running run goes on now (plus ALARM_DELAY_MS, which only tests set).

export type AlarmFacts = {
  status: "running" | "waiting" | "finished" | "failed" | "cancelled";
  /** When a stopped run deletes itself (ms since the epoch). */
  deleteAt: number | undefined;
  /** The async call the last slice was suspended on, as stored now; undefined when it was not suspended. */
  suspendedOn: { deadline: number; answered: boolean } | undefined;
  now: number;
  delayMs: number;
};

/** The alarm's time (ms since the epoch), or undefined for none. */
export function nextAlarm(facts: AlarmFacts): number | undefined {
  if (facts.status !== "running") return facts.deleteAt;
  const call = facts.suspendedOn;
  // A result stored while the slice was ending is taken now, not at the deadline.
  if (call !== undefined && !call.answered) return Math.max(call.deadline, facts.now);
  return facts.now + facts.delayMs;
}
