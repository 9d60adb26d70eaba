// A fire's run, created the way POST /v1/runs creates one, minus what the edge already did when the
// schedule's run was set (src/http/intake/schedule-template.ts checked the body against the
// deployment and kept a RunTemplate). The id and token are derived from the schedule and the
// fire's key (HMAC under RUN_ID_KEY, as an Idempotency-Key's are), and the body hash stands for
// the fire itself: a fire sent again after a crash reaches the same run object, whose `create`
// answers the run it made the first time, even if the schedule's run was changed in between.
// The run object's `create` does the rest as for any run: a run of a subject reserves its budget
// in the subject's inbox first (402 spend-limit when it does not fit).
import type { RunRpc } from "../../api/rpc/run-rpc";
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { NewRun, Outcome, RunView } from "../../api/types";
import { currentRunIdKey } from "../../config/settings";
import { canonicalJson } from "../../lib/canonical-json";
import { sha256Hex } from "../../lib/encoding";
import { idempotentRunCredentials, type RunCredentials } from "../../lib/ids/run-ids";

/** A run object by id (the edge's src/http/run-stub.ts does the same for requests). */
export function runOf(env: Env, runId: string): DurableObjectStub & RunRpc {
  return env.RUNS.get(env.RUNS.idFromName(runId)) as unknown as DurableObjectStub & RunRpc;
}

/** Whose idempotency keys a schedule's fires are: never a caller's Idempotency-Key scope ("deployment", "subject:…"). */
export const scheduleScope = (scheduleId: string): string => `schedule:${scheduleId}`;

/**
 * The fire's run id and token. During a RUN_ID_KEY rotation a fire retried after a crash may have
 * made its run under the previous key: that run is the one.
 */
export async function fireCredentials(env: Env, scheduleId: string, key: string): Promise<RunCredentials> {
  const previous = typeof env.RUN_ID_KEY_PREVIOUS === "string" && env.RUN_ID_KEY_PREVIOUS !== "" ? env.RUN_ID_KEY_PREVIOUS : undefined;
  if (previous !== undefined) {
    const earlier = await idempotentRunCredentials(previous, scheduleScope(scheduleId), key);
    if (await runOf(env, earlier.id).exists()) return earlier;
  }
  return idempotentRunCredentials(currentRunIdKey(env), scheduleScope(scheduleId), key);
}

export type FireRunAnswer = { runId: string; outcome: Outcome<RunView> };

/** Creates (or finds again) the run of the fire `key` at `at`. Throws when the run object could not be reached. */
export async function createFireRun(env: Env, scheduleId: string, template: RunTemplate, key: string, at: number): Promise<FireRunAnswer> {
  const { id, token } = await fireCredentials(env, scheduleId, key);
  const run: NewRun = {
    id,
    body: template.body,
    model: template.model,
    provider: template.provider,
    tokenHash: await sha256Hex(token),
    bodyHash: await sha256Hex(canonicalJson({ schedule: scheduleId, fire: key })),
    scheduleId,
    firedAt: new Date(at).toISOString(),
  };
  if (template.subject !== undefined) run.subject = template.subject;
  if (template.dayLimitUsd !== undefined) run.dayLimitUsd = template.dayLimitUsd;
  if (template.origin !== undefined) run.origin = template.origin;
  return { runId: id, outcome: await runOf(env, id).create(run) };
}
