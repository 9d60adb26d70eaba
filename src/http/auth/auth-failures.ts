// Failed authentications, rate-limited per run id at the edge (AUTH_FAILURE_RATE_LIMIT): a flood of
// made-up tokens, tickets or callback tokens aimed at one run must not reach its object. Each
// failure counts against the run id's limit; past it the answer is 429, and this isolate then
// answers every run-token, ticket and callback request for that run id with 429 at once, without
// asking the object, until the period is over. The binding counts across the deployment's isolates
// (per location); the note kept here is what keeps the object out of it.
import { ApiException } from "../errors";
import { RATE_LIMIT_PERIOD_SECONDS } from "./rate-limit";
import { ExpiringKeys } from "../../lib/time/expiring-keys";

/** Run ids past their failure limit here, until the period is over. Bounded: the oldest note goes first. */
const BLOCKED_KEPT = 10_000;
const blocked = new ExpiringKeys(BLOCKED_KEPT);

function tooMany(): ApiException {
  return new ApiException(429, `Too many failed authentications for this run. Try again in ${RATE_LIMIT_PERIOD_SECONDS} seconds.`, { retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS });
}

/** Throws 429 while this isolate knows the run id is past its limit. */
export function refuseIfBlocked(runId: string, now: number): void {
  if (blocked.has(runId, now)) throw tooMany();
}

/** Counts a failed authentication on `runId`; throws 429 (and notes the block) when it is one too many. */
export async function countFailure(binding: RateLimit | undefined, runId: string, now: number): Promise<void> {
  if (binding === undefined) return;
  const { success } = await binding.limit({ key: `auth-failure:${runId}` });
  if (success) return;
  blocked.note(runId, now + RATE_LIMIT_PERIOD_SECONDS * 1000);
  throw tooMany();
}
