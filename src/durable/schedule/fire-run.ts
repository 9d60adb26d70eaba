// A fire's run, created the way POST /v1/runs creates one. The schedule's run was admitted when it
// was set (src/http/intake/schedule-template.ts kept a RunTemplate); each fire admits it again
// through the one intake (src/intake/admit-run.ts), with its creator's rights and today's settings:
// a cap lowered, a host taken off HTTP_TOOL_ALLOW or SCRIPTED_PROVIDER turned off since refuses the
// fire, which the schedule records `failed` with the refusal (every issue and the setting it names),
// and no run is made; a trigger answers the refusal, its paths under `run.` as the schedule's
// create would. The id and token are derived from the schedule and the
// fire's key (HMAC under RUN_ID_KEY, as an Idempotency-Key's are), and the body hash stands for
// the fire itself: a fire sent again after a crash reaches the same run object, whose `create`
// answers the run it made the first time, even if the schedule's run was changed in between.
// The run object's `create` does the rest as for any run: a run of a subject reserves its budget
// in the subject's inbox first (402 spend-limit when it does not fit).
import type { RunRpc } from "../../api/rpc/run-rpc";
import type { RunTemplate } from "../../api/rpc/schedule-rpc";
import type { NewRun, Outcome, RunView } from "../../api/types";
import { currentRunIdKey } from "../../config/settings";
import { canonicalJson } from "../../lib/text/canonical-json";
import { sha256Hex } from "../../lib/text/encoding";
import { idempotentRunCredentials, type RunCredentials } from "../../lib/ids/run-ids";
import { admitRun, type AdmittedRun, type IntakeCaller } from "../../intake/admit-run";
import { DEFAULT_PROVIDER } from "../../api/resources/agent-types";
import { intakeSettingsOf } from "../../intake/intake-settings";
import { describeRefusal, IntakeRefusal, refusalOutcome, refusalUnder } from "../../intake/refusal";

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
export function fireCredentials(env: Env, scheduleId: string, key: string): Promise<RunCredentials> {
  return derivedCredentials(env, scheduleScope(scheduleId), key);
}

/**
 * The id and token of the run an object derives from its own id and a key of its own (a schedule's
 * fire, an experiment's case), as an Idempotency-Key's are. During a RUN_ID_KEY rotation a run made
 * under the previous key before a crash is that run.
 */
export async function derivedCredentials(env: Env, scope: string, key: string): Promise<RunCredentials> {
  const previous = typeof env.RUN_ID_KEY_PREVIOUS === "string" && env.RUN_ID_KEY_PREVIOUS !== "" ? env.RUN_ID_KEY_PREVIOUS : undefined;
  if (previous !== undefined) {
    const earlier = await idempotentRunCredentials(previous, scope, key);
    if (await runOf(env, earlier.id).exists()) return earlier;
  }
  return idempotentRunCredentials(currentRunIdKey(env), scope, key);
}

export type FireRunAnswer = { runId: string; outcome: Outcome<RunView> };

/** The caller a fire is admitted as: the schedule's creator (a template stored before its creator was kept: its settings only). */
function callerOf(template: RunTemplate): IntakeCaller {
  if (template.creator === "deployment") return { kind: "deployment" };
  if (template.creator === "user" && template.subject !== undefined) return { kind: "user", subject: template.subject };
  return { kind: "admitted" };
}

/** The fire's run as the intake admits it today, or its refusal (each issue's path under `run.`). */
export function admitFire(env: Env, template: RunTemplate): { ok: true; run: AdmittedRun } | { ok: false; refusal: IntakeRefusal } {
  const { messages: _messages, ...body } = template.body;
  try {
    const run = admitRun({
      body,
      caller: callerOf(template),
      env,
      settings: intakeSettingsOf(env),
      // A run of an agent version that takes the deployment's provider ("default") takes today's; any other keeps the one it was set with.
      ...(template.agent?.provider === DEFAULT_PROVIDER ? {} : { resolved: { provider: template.provider, model: template.model } }),
      ...(template.agent === undefined ? {} : { source: { body: template.agent.template, provider: template.agent.provider, model: template.agent.model } }),
      ...(template.dayLimitUsd === undefined ? {} : { dayLimitUsd: template.dayLimitUsd }),
    });
    return { ok: true, run };
  } catch (error) {
    if (error instanceof IntakeRefusal) return { ok: false, refusal: refusalUnder("run", error) };
    throw error;
  }
}

/** Creates (or finds again) the run of the fire `key` at `at`. Throws when the run object could not be reached. */
export async function createFireRun(env: Env, scheduleId: string, template: RunTemplate, key: string, at: number): Promise<FireRunAnswer> {
  const { id, token } = await fireCredentials(env, scheduleId, key);
  const admitted = admitFire(env, template);
  // A fire tried again after a crash whose run was made the first time is that run, whatever today's settings say.
  if (!admitted.ok && !(await runOf(env, id).exists())) {
    const { refusal } = admitted;
    // The fire's record keeps the message with every issue: each names the setting to change.
    return { runId: id, outcome: refusalOutcome(new IntakeRefusal(refusal.status, describeRefusal(refusal), refusal.issues)) };
  }
  const fire: AdmittedRun = admitted.ok ? admitted.run : { ...template, body: template.body };
  const run: NewRun = {
    id,
    body: { ...fire.body, messages: template.body.messages },
    model: fire.model,
    provider: fire.provider,
    tokenHash: await sha256Hex(token),
    bodyHash: await sha256Hex(canonicalJson({ schedule: scheduleId, fire: key })),
    scheduleId,
    firedAt: new Date(at).toISOString(),
  };
  if (template.agent !== undefined) run.agent = { name: template.agent.name, version: template.agent.version };
  if (fire.subject !== undefined) run.subject = fire.subject;
  if (fire.dayLimitUsd !== undefined) run.dayLimitUsd = fire.dayLimitUsd;
  if (template.origin !== undefined) run.origin = template.origin;
  return { runId: id, outcome: await runOf(env, id).create(run) };
}
