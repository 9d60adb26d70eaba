// A batch channel's delivery (inbox, schedule, experiment): the recipient's `apply` within
// INBOX_TIMEOUT_MS, so a busy or unreachable recipient is retried later, never waited for. Throws
// when the changes were not taken.
import type { Outcome } from "../../api/types";
import { INBOX_TIMEOUT_MS } from "./outbox-schedule";

export async function applyWithin(recipient: string, apply: () => Promise<Outcome<unknown>>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The ${recipient} did not answer within ${INBOX_TIMEOUT_MS / 1000} s.`)), INBOX_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([apply(), timeout]);
    if (!outcome.ok) throw new Error(outcome.error.message);
  } finally {
    clearTimeout(timer);
  }
}
