// Rate limits with the Workers rate-limiting binding (wrangler.toml [[ratelimits]]): run creation
// per deployment token and per subject (user tokens), requests per run token and per subject, and
// agent cards read without credentials per client address. Past a limit the API answers 429 rate-limited with
// Retry-After (the binding does not say when its window ends, so the answer names the whole period).
import { ApiException } from "../errors";
import { sha256Hex } from "../../lib/text/encoding";

/** The period of every limit in wrangler.toml, in seconds. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** Throws 429 when `key` is past the binding's limit. A deployment without the binding is not limited. */
export async function enforceRateLimit(binding: RateLimit | undefined, key: string, what: string): Promise<void> {
  if (binding === undefined) return;
  const { success } = await binding.limit({ key });
  if (!success) {
    throw new ApiException(429, `Too many requests: ${what}. Try again in ${RATE_LIMIT_PERIOD_SECONDS} seconds.`, { retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS });
  }
}

/** The key of a deployment token: a hash, so no token is handed to the binding. */
export async function deploymentKey(token: string): Promise<string> {
  return `deployment:${(await sha256Hex(token)).slice(0, 32)}`;
}

/** The key of a subject (a user token's): a hash, so no app's user id is handed to the binding. */
export async function subjectKey(subject: string): Promise<string> {
  return `subject:${(await sha256Hex(subject)).slice(0, 32)}`;
}

/** A run made with the deployment token: CREATE_RATE_LIMIT, per deployment token. */
export async function limitDeploymentCreation(env: Env, token: string): Promise<void> {
  await enforceRateLimit(env.CREATE_RATE_LIMIT, await deploymentKey(token), "runs created with this deployment token");
}

/** A fork made with a run token: CREATE_RATE_LIMIT, per source run (the subject's limit applies too). */
export async function limitForkCreation(env: Env, sourceRunId: string): Promise<void> {
  await enforceRateLimit(env.CREATE_RATE_LIMIT, `fork-source:${sourceRunId}`, "forks made with this run's token");
}

/** A run made for a subject by a user token, or by a run token of one of its runs: SUBJECT_CREATE_RATE_LIMIT, per subject. */
export async function limitSubjectCreation(env: Env, subject: string): Promise<void> {
  await enforceRateLimit(env.SUBJECT_CREATE_RATE_LIMIT, await subjectKey(subject), "runs created for this subject");
}

/** The key of a client address (CF-Connecting-IP; one key for requests that carry none): a hash, so no address is handed to the binding. */
export async function clientKey(address: string | undefined): Promise<string> {
  return `client:${(await sha256Hex(address ?? "unknown")).slice(0, 32)}`;
}

/** An agent card read without credentials (a deployment or user token): AGENT_CARD_RATE_LIMIT, per client address. */
export async function limitAgentCard(env: Env, address: string | undefined): Promise<void> {
  await enforceRateLimit(env.AGENT_CARD_RATE_LIMIT, await clientKey(address), "agent cards read without credentials from this address");
}
