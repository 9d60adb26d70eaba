// Failed authentications, rate-limited per run id at the edge (AUTH_FAILURE_RATE_LIMIT): a flood of
// made-up tokens, tickets or callback tokens aimed at one run must not reach its object. Each
// failure counts against the run id's limit; past it the answer is 429, and this isolate then
// answers every run-token, ticket and callback request for that run id with 429 at once, without
// asking the object, until the period is over. The binding counts across the deployment's isolates
// (per location); the note kept here is what keeps the object out of it.
import { ApiException } from "../errors";
import { RATE_LIMIT_PERIOD_SECONDS } from "./rate-limit";

/** Run ids past their failure limit here, and until when (ms since the epoch). Bounded: the oldest note goes first. */
const blocked = new Map<string, number>();
const BLOCKED_KEPT = 10_000;

function tooMany(): ApiException {
  return new ApiException(429, `Too many failed authentications for this run. Try again in ${RATE_LIMIT_PERIOD_SECONDS} seconds.`, { retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS });
}

/** Throws 429 while this isolate knows the run id is past its limit. */
export function refuseIfBlocked(runId: string, now: number): void {
  const until = blocked.get(runId);
  if (until === undefined) return;
  if (until > now) throw tooMany();
  blocked.delete(runId);
}

/** Counts a failed authentication on `runId`; throws 429 (and notes the block) when it is one too many. */
export async function countFailure(binding: RateLimit | undefined, runId: string, now: number): Promise<void> {
  if (binding === undefined) return;
  const { success } = await binding.limit({ key: `auth-failure:${runId}` });
  if (success) return;
  if (blocked.size >= BLOCKED_KEPT) blocked.delete(blocked.keys().next().value!);
  blocked.set(runId, now + RATE_LIMIT_PERIOD_SECONDS * 1000);
  throw tooMany();
}
