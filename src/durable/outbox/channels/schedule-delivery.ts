// The run's side of the schedule channel: its changes handed to the schedule whose fire made it,
// within a time limit (a busy or unreachable schedule is retried later, never waited for).
import type { InboxChange } from "../../../api/rpc/inbox-rpc";
import { scheduleStub } from "../../schedule/schedule-stub";
import { deliverWithin } from "../deliver-within";

export async function deliverToSchedule(env: Env, scheduleId: string, changes: InboxChange[]): Promise<void> {
  await deliverWithin("The schedule", scheduleStub(env, scheduleId).apply(scheduleId, changes));
}
