// The run's side of the schedule channel: its changes handed to the schedule whose fire made it,
// within a time limit (a busy or unreachable schedule is retried later, never waited for).
import type { InboxChange } from "../../api/rpc/inbox-rpc";
import { scheduleStub } from "../schedule/schedule-stub";
import { INBOX_TIMEOUT_MS } from "./outbox-schedule";

export async function deliverToSchedule(env: Env, scheduleId: string, changes: InboxChange[]): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The schedule did not answer within ${INBOX_TIMEOUT_MS / 1000} s.`)), INBOX_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([scheduleStub(env, scheduleId).apply(scheduleId, changes), timeout]);
    if (!outcome.ok) throw new Error(outcome.error.message);
  } finally {
    clearTimeout(timer);
  }
}
