// The run's side of the inbox channel: its changes handed to the subject's inbox object, within a
// time limit (a busy or unreachable inbox is retried later, never waited for).
import type { InboxChange } from "../../api/rpc/inbox-rpc";
import { inboxStub } from "../inbox/inbox-stub";
import { applyWithin } from "./apply-within";

export function deliverToInbox(env: Env, subject: string, changes: InboxChange[]): Promise<void> {
  return applyWithin("inbox", () => inboxStub(env, subject).apply(subject, changes));
}
