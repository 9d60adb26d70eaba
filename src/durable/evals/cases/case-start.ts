// A case's run (docs/evals.md, "Experiments"), made the way a fork is made: a recorded case is a fork
// of its recording at step 0 — the recording's given messages, its request with the variant's
// changes in place (src/intake/fork-body.ts), or a stored agent's version with those messages — and
// an inline case a new run of the variant with the case's messages. Either body is admitted as a
// whole by the one intake (src/intake/admit-run.ts) with the deployment's rights and today's
// settings, as a schedule's fire is: a refusal fails the case with every issue, and no run is made.
// The run belongs to no subject (no inbox lists it, no phone hears of it; the experiment's budget
// bounds it), keeps none of its recording's tags or webhook, and carries the recorded calls its tool
// calls are answered from. Its id and token are derived from the experiment and the case, and its
// body hash stands for the case itself: a case started again after a crash reaches the same run
// object, whose create answers the run it made the first time.
import type { StoredVariant } from "../../../api/rpc/evals-rpc";
import type { ForkCopy, ForkSpec } from "../../../api/rpc/fork-rpc";
import type { CaseReplay } from "../../../api/resources/eval-types";
import type { CreateRunBody, NewRun, Outcome, RunView } from "../../../api/types";
import { recordedCallsOf } from "../../../evals/recorded-calls";
import { admitRun, resolvedOf, type AdmittedRun, type IntakeInput, type RunFields } from "../../../intake/admit-run";
import { forkBodyOf } from "../../../intake/fork-body";
import { intakeSettingsOf } from "../../../intake/intake-settings";
import { describeRefusal, IntakeRefusal, refusalOutcome } from "../../../intake/refusal";
import { canonicalJson } from "../../../lib/text/canonical-json";
import { sha256Hex } from "../../../lib/text/encoding";
import type { ChatMessage } from "../../../loop/types";
import type { Recording } from "../../../replay/recording";
import { derivedCredentials, runOf } from "../../schedule/fire-run";
import type { CaseRow, ExperimentSpec } from "../experiment/experiment-store";
import { readRecording } from "./recording-read";

/** Whose idempotency keys an experiment's cases are: never a caller's scope. */
export const experimentScope = (experimentId: string): string => `experiment:${experimentId}`;

/** A case's run, ready to be made: how, and what it holds against the budget (its run's budget). */
export type PreparedCase =
  | { kind: "fork"; run: NewRun; prefix: ForkCopy; spec: ForkSpec; budgetUsd: number; recording: Recording }
  | { kind: "new"; run: NewRun; budgetUsd: number }
  | { kind: "refused"; runId: string; outcome: Outcome<never> };

/** Fields a case run never keeps of its recording: it is the experiment's, not the recording's subject's. */
function ownFields(body: RunFields): RunFields {
  const { subject: _subject, webhook: _webhook, tags: _tags, ...rest } = body;
  return rest;
}

/** The body a variant makes of a case's messages and (for a recorded case) its recording's request. */
function bodyOf(variant: StoredVariant, messages: ChatMessage[], recorded: CreateRunBody | undefined): CreateRunBody {
  if (variant.kind === "agent") return { ...variant.template, messages };
  const { budget, script, ...changes } = variant.changes;
  const fields = { ...changes, ...(budget === undefined ? {} : { budget }), ...(script === undefined ? {} : { script }) };
  return recorded === undefined ? { ...fields, messages } : { ...forkBodyOf(recorded, fields, 0), messages };
}

function admitted(input: IntakeInput): { ok: true; run: AdmittedRun } | { ok: false; refusal: IntakeRefusal } {
  try {
    return { ok: true, run: admitRun(input) };
  } catch (error) {
    if (error instanceof IntakeRefusal) return { ok: false, refusal: error };
    throw error;
  }
}

function refused(runId: string, refusal: IntakeRefusal): PreparedCase {
  return { kind: "refused", runId, outcome: refusalOutcome(new IntakeRefusal(refusal.status, describeRefusal(refusal), refusal.issues)) };
}

/** The case's run as it will be made, or why it cannot be. Throws when an object could not be reached. */
export async function prepareCase(env: Env, spec: ExperimentSpec, row: CaseRow): Promise<PreparedCase> {
  const { id, token } = await derivedCredentials(env, experimentScope(spec.id), `case/${row.n}`);
  const variant = spec.resolved;
  const base = { id, tokenHash: await sha256Hex(token), bodyHash: await sha256Hex(canonicalJson({ experiment: spec.id, case: row.n })), origin: spec.origin };
  const replay: CaseReplay = { experimentId: spec.id, case: row.n, mode: spec.mode, calls: [] };
  const settings = intakeSettingsOf(env);
  const source = variant.kind === "agent" ? { body: variant.template, provider: variant.provider, model: variant.model } : undefined;
  const agentSource = source === undefined ? {} : { source, ...resolvedOf(source) };
  if (row.sourceRunId === undefined) {
    const { messages, ...fields } = bodyOf(variant, row.messages ?? [], undefined);
    const made = admitted({ body: ownFields(fields), caller: { kind: "deployment" }, env, settings, ...agentSource });
    if (!made.ok) return refused(id, made.refusal);
    const run: NewRun = { ...base, body: { ...made.run.body, messages }, model: made.run.model, provider: made.run.provider, replay };
    if (variant.kind === "agent") run.agent = variant.agent;
    return { kind: "new", run, budgetUsd: made.run.body.budget!.usd };
  }
  // Its prefix and its recording, read at once.
  const [prefixed, recording] = await Promise.all([runOf(env, row.sourceRunId).forkPrefix(0), readRecording(env, row.sourceRunId)]);
  if (!prefixed.ok) return { kind: "refused", runId: id, outcome: { ...prefixed, error: { ...prefixed.error, message: `The recorded run ${row.sourceRunId} cannot be replayed: ${prefixed.error.message}` } } };
  if (!recording.ok) return { kind: "refused", runId: id, outcome: recording };
  const { body: recorded, ...prefix } = prefixed.value;
  const { messages, ...fields } = bodyOf(variant, JSON.parse(prefix.history) as ChatMessage[], recorded);
  const { messages: _recordedMessages, ...recordedFields } = recorded;
  let input: IntakeInput;
  if (variant.kind === "agent") {
    input = { body: ownFields(fields), caller: { kind: "deployment" }, env, settings, ...agentSource };
  } else {
    const provider = variant.changes.provider ?? prefix.provider;
    const model = variant.changes.model ?? (provider === prefix.provider ? prefix.model : undefined);
    input = { body: ownFields(fields), caller: { kind: "deployment" }, env, settings, source: { body: recordedFields, provider: prefix.provider, model: prefix.model }, resolved: model === undefined ? { provider } : { provider, model } };
  }
  const made = admitted(input);
  if (!made.ok) return refused(id, made.refusal);
  replay.calls = recordedCallsOf(recording.value);
  const run: NewRun = { ...base, body: { ...made.run.body, messages: recorded.messages }, model: made.run.model, provider: made.run.provider, replay };
  if (variant.kind === "agent") run.agent = variant.agent;
  const changed = variant.kind === "agent" || Object.values(variant.changes).some((value) => value !== undefined);
  const forkSpec: ForkSpec = { cut: changed };
  const maxSteps = variant.kind === "agent" ? made.run.body.maxSteps : variant.changes.maxSteps;
  if (maxSteps !== undefined) forkSpec.maxSteps = maxSteps;
  const { subject: _subject, dayLimitUsd: _dayLimit, ...copy } = prefix;
  return { kind: "fork", run, prefix: copy, spec: forkSpec, budgetUsd: made.run.body.budget!.usd, recording: recording.value };
}

/** The prepared case with its run's budget set to `usd` (the experiment's share of it; its finishAt kept). */
export function withRunBudget(prepared: PreparedCase, usd: number): PreparedCase {
  if (prepared.kind === "refused" || prepared.run.body.budget?.usd === usd) return prepared;
  return { ...prepared, run: { ...prepared.run, body: { ...prepared.run.body, budget: { ...prepared.run.body.budget, usd } } }, budgetUsd: usd };
}

/** Makes the prepared case's run (or finds the one a first attempt made). Throws when its object could not be reached. */
export async function createCaseRun(prepared: PreparedCase, env: Env): Promise<{ runId: string; outcome: Outcome<RunView> }> {
  if (prepared.kind === "refused") return { runId: prepared.runId, outcome: prepared.outcome };
  const stub = runOf(env, prepared.run.id);
  const outcome = prepared.kind === "fork" ? await stub.createFork(prepared.run, prepared.prefix, prepared.spec) : await stub.create(prepared.run);
  return { runId: prepared.run.id, outcome };
}
