// The run's side of the inbox channel: its changes handed to the subject's inbox object, within a
// time limit (a busy or unreachable inbox is retried later, never waited for).
import type { InboxChange } from "../../api/rpc/inbox-rpc";
import { inboxStub } from "../inbox/inbox-stub";
import { INBOX_TIMEOUT_MS } from "./outbox-schedule";

export async function deliverToInbox(env: Env, subject: string, changes: InboxChange[]): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The inbox did not answer within ${INBOX_TIMEOUT_MS / 1000} s.`)), INBOX_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([inboxStub(env, subject).apply(subject, changes), timeout]);
    if (!outcome.ok) throw new Error(outcome.error.message);
  } finally {
    clearTimeout(timer);
  }
}
