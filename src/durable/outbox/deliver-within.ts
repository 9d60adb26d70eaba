// A batch channel's delivery to its object (the subject's inbox, the run's schedule, a child's
// parent, a stored agent's index of runs, an experiment): the object's answer within a time limit, so a busy or
// unreachable object is tried again later (the outbox's retry schedule), never waited for.
import type { Outcome } from "../../api/types";
import { INBOX_TIMEOUT_MS } from "./outbox-schedule";

/** Waits for `call` at most INBOX_TIMEOUT_MS; throws when it did not answer in time or answered a failure. `who` names the object in the error. */
export async function deliverWithin(who: string, call: Promise<Outcome<unknown>>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${who} did not answer within ${INBOX_TIMEOUT_MS / 1000} s.`)), INBOX_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([call, timeout]);
    if (!outcome.ok) throw new Error(outcome.error.message);
  } finally {
    clearTimeout(timer);
  }
}
