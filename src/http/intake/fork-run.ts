// From a validated POST /v1/runs/:id/fork body and the source's prefix to the fork the new object
// stores: the source's request with the replaced fields, admitted as a whole by the one intake
// (src/intake/admit-run.ts: what the fork keeps of its source is held to today's settings, what it
// changes to the caller's rights too; a user or run token's fork spends at most the source's
// budget; a run token may fork only a run with a subject), the added messages' images, the id and
// token (or those an Idempotency-Key names), and whether the fork changes anything (then its
// prefix is cut off from what follows, fork-plan.ts). The fork belongs to the source's subject and
// reserves its budget from that subject's day when its object creates it, as any run does.
import type { ForkPrefix, ForkSpec } from "../../api/rpc/fork-rpc";
import type { ForkInput } from "../../api/schemas/runs/fork-schemas";
import type { ImageUpload } from "../../api/images/images";
import type { CreateRunBody, NewRun } from "../../api/types";
import type { Settings } from "../../config/settings";
import { canonicalJson } from "../../lib/text/canonical-json";
import { sha256Hex } from "../../lib/text/encoding";
import type { IntakeCaller } from "../../intake/admit-run";
import { ApiException } from "../errors";
import { admitAtEdge } from "./admit";
import { ImageIntake } from "./images";
import { credentialsFor, type FindEarlier } from "./new-run";
import { FORK_REPLACED, forkBodyOf } from "../../intake/fork-body";

/** What makes a fork go its own way after atStep: a replaced field, added messages, or a script of its own. */
const DIVERGING = [...FORK_REPLACED, "messages", "script"] as const;

export type ForkCaller = { kind: "deployment" } | { kind: "run" } | { kind: "user"; subject: string; budgetUsdPerDay?: number };

export type PrepareForkInput = {
  body: ForkInput;
  prefix: ForkPrefix;
  env: Env;
  settings: Settings;
  idempotencyKey: string | undefined;
  findEarlier: FindEarlier;
  caller: ForkCaller;
  origin: string;
};

export type PreparedFork = { newRun: NewRun; token: string; spec: ForkSpec; images: ImageUpload };

/** The fork's caller as the intake sees it: a run token acts for its run's subject (none: only the deployment may fork). */
function intakeCallerOf(caller: ForkCaller, prefix: ForkPrefix): IntakeCaller {
  if (caller.kind !== "run") return caller;
  return prefix.subject === undefined ? { kind: "run" } : { kind: "run", subject: prefix.subject };
}

export async function prepareFork({ body, prefix, env, settings, idempotencyKey, findEarlier, caller, origin }: PrepareForkInput): Promise<PreparedFork> {
  // The full body the fork stores, checked as a whole by the one intake: what it keeps of its
  // source is held to today's settings, what it changes to the caller's rights as well.
  const { messages, ...merged } = forkBodyOf(prefix.body, body, body.atStep);
  if (prefix.subject !== undefined) merged.subject = prefix.subject;
  const { messages: _sourceMessages, ...sourceFields } = prefix.body;
  const provider = body.provider ?? prefix.provider;
  const model = body.model ?? (provider === prefix.provider ? prefix.model : undefined);
  const admitted = admitAtEdge({
    body: merged,
    caller: intakeCallerOf(caller, prefix),
    env,
    settings,
    source: { body: sourceFields, provider: prefix.provider, model: prefix.model },
    resolved: model === undefined ? { provider } : { provider, model },
    ...(prefix.dayLimitUsd === undefined ? {} : { dayLimitUsd: prefix.dayLimitUsd }),
  });
  const stored: CreateRunBody = { ...admitted.body, messages };
  if (body.messages !== undefined && prefix.openCalls.length > 0) {
    throw new ApiException(409, `Step ${prefix.atStep}'s turn has calls with no result in run ${prefix.runId} (${prefix.openCalls.join(", ")}): fork without messages (the fork runs them), or at another step.`);
  }

  const images = new ImageIntake();
  const added = body.messages === undefined ? undefined : await images.messages(body.messages);
  const upload = images.upload();
  const spec: ForkSpec = { cut: DIVERGING.some((field) => body[field] !== undefined) };
  if (added !== undefined) spec.added = added;
  if (body.maxSteps !== undefined) spec.maxSteps = body.maxSteps;
  const bodyHash = await sha256Hex(canonicalJson({ fork: prefix.runId, body }));
  const { id, token } = await credentialsFor(settings, idempotencyKey, findEarlier, `fork:${prefix.runId}:${caller.kind}`);
  const newRun: NewRun = { id, body: stored, model: admitted.model, provider: admitted.provider, tokenHash: await sha256Hex(token), bodyHash, origin };
  if (admitted.subject !== undefined) newRun.subject = admitted.subject;
  if (admitted.dayLimitUsd !== undefined) newRun.dayLimitUsd = admitted.dayLimitUsd;
  return { newRun, token, spec, images: upload };
}
