// The run's side of its subject's spend limit (src/api/rules/spend.ts): before a run of a subject is
// created, and before a continue or a retry sets it running again, its budget (what it may still
// spend) is reserved in the subject's inbox object (and again when it goes on on a later UTC day:
// ./spend-day.ts). The reservation's key is the change version
// that will start it, so a retried create or a crash between reserving and writing asks for the
// same reservation again, which counts once. Its release needs no call of its own: the inbox
// releases it when it applies the run's end (or deletion) from the run's outbox, at least once.
import { spendLimitMessage, type Reservation } from "../../api/rules/spend";
import type { Outcome } from "../../api/types";
import { limitsOf } from "../../config/settings";
import { inboxStub } from "./inbox-stub";
import { INBOX_TIMEOUT_MS } from "../outbox/outbox-schedule";
import { fail, ok } from "../run/outcome";
import type { RunRow } from "../run/store/run-store";

export type SpendAsk = { subject: string; reservation: Reservation };

async function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The subject's inbox did not answer within ${INBOX_TIMEOUT_MS / 1000} s.`)), INBOX_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Holds the reservation (answering the UTC day it is charged to), or the 402 that names what is left and when it resets. */
export async function reserveSpend(env: Env, ask: SpendAsk): Promise<Outcome<{ day: string }>> {
  const answer = await withinTimeout(inboxStub(env, ask.subject).reserve(ask.subject, ask.reservation));
  if (answer.ok) return ok({ day: answer.day });
  return fail(402, spendLimitMessage(ask.reservation.usd, answer.usage), [{ path: "budget.usd", message: `${answer.usage.leftUsd} USD left today; the day resets on ${answer.usage.resetsAt}.` }]);
}

/** A creation that failed after its reservation gives it back (best effort: an unconfirmed hold also lapses by itself). */
export async function dropSpend(env: Env, ask: SpendAsk): Promise<void> {
  await withinTimeout(inboxStub(env, ask.subject).dropHold(ask.reservation.runId, ask.reservation.key)).catch(() => undefined);
}

/**
 * What a run of a subject reserves under change version `key`: what it may still spend of its
 * budget, against `limitUsd` (a user token's own limit, else the run's, else the deployment's).
 */
export function spendAskOf(env: Env, run: Pick<RunRow, "id" | "body"> & { spentUsd?: number }, subject: string, key: number, limitUsd: number | undefined): SpendAsk {
  const spent = run.spentUsd ?? run.body.budget?.spentUsd ?? 0;
  const budget = run.body.budget?.usd ?? 0;
  return {
    subject,
    reservation: { runId: run.id, key, usd: Math.max(0, budget - spent), spentBeforeUsd: spent, limitUsd: limitUsd ?? limitsOf(env).subjectBudgetUsdPerDay },
  };
}

/** Before a continue or a retry sets a run of a subject running again: its budget's rest is reserved (402 when it does not fit). */
export async function reserveAgain(env: Env, run: RunRow, limitUsd: number | undefined): Promise<Outcome<{ day: string } | null>> {
  if (run.subject === undefined) return ok(null);
  return reserveSpend(env, spendAskOf(env, run, run.subject, run.version + 1, limitUsd ?? run.dayLimitUsd));
}
