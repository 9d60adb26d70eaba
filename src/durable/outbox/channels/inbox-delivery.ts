// The run's side of the inbox channel: its changes handed to the subject's inbox object, within a
// time limit (a busy or unreachable inbox is retried later, never waited for).
import type { InboxChange } from "../../../api/rpc/inbox-rpc";
import { inboxStub } from "../../inbox/inbox-stub";
import { deliverWithin } from "../deliver-within";

export async function deliverToInbox(env: Env, subject: string, changes: InboxChange[]): Promise<void> {
  await deliverWithin("The inbox", inboxStub(env, subject).apply(subject, changes));
}
