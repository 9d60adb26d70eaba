// When an inbox object wakes up next (pure): one decision for its one alarm, which serves two
// purposes, so neither loses it — closing watchers whose user token ended (watcher-tokens.ts), and
// delivering the push outbox (../push/push-delivery.ts). The earliest wins; whatever is not due
// when it fires sets the next one.

export type InboxAlarmInputs = {
  /** When the watchers' user tokens must be looked at next, if any watcher has one. */
  tokenCheckAt?: number | undefined;
  /** When the earliest push is due, if any is pending. */
  pushDueAt?: number | undefined;
  now: number;
  /** ALARM_DELAY_MS: "at once" means this long from now (0 in service; the tests fire alarms by hand). */
  delayMs: number;
};

/** When to set the alarm, or undefined when the inbox has nothing to wake up for. */
export function nextInboxAlarm({ tokenCheckAt, pushDueAt, now, delayMs }: InboxAlarmInputs): number | undefined {
  const candidates: number[] = [];
  if (tokenCheckAt !== undefined) candidates.push(tokenCheckAt);
  if (pushDueAt !== undefined) candidates.push(Math.max(pushDueAt, now + delayMs));
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}
