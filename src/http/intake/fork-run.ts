// From a validated POST /v1/runs/:id/fork body and the source's prefix to the fork the new object
// stores: the source's request with the replaced fields (checked as a create checks them), the
// added messages' images, the id and token (or those an Idempotency-Key names), and whether the
// fork changes anything (then its prefix is cut off from what follows, fork-plan.ts). The fork
// belongs to the source's subject. A run or user token may not add what only the deployment may
// ask for (HTTP and provider tools); the source's own tools stay as they were.
import type { ForkPrefix, ForkSpec } from "../../api/rpc/fork-rpc";
import type { ForkInput } from "../../api/schemas/fork-schemas";
import type { ImageUpload } from "../../api/images/images";
import type { CreateRunBody, NewRun } from "../../api/types";
import type { Settings } from "../../config/settings";
import { canonicalJson } from "../../lib/canonical-json";
import { sha256Hex } from "../../lib/encoding";
import { checkToolRefs, checkToolSigning, parseAllowList, providerOnlyIssues, signingKeysOf } from "../../tools";
import { ApiException, invalidRequest } from "../errors";
import { ImageIntake } from "./images";
import { capIssues, creatorIssues, credentialsFor, type FindEarlier } from "./new-run";
import { compactionIssues, priceIssues, requireScriptedAllowed, resolveModel } from "./run-model";

const REPLACED = ["system", "provider", "model", "tools", "budget", "maxSteps"] as const;

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

/** The source's request with the fork's fields in place of its own; a new provider without a model gets that provider's default. */
function forkBodyOf(source: CreateRunBody, body: ForkInput): CreateRunBody {
  const merged: CreateRunBody = { ...source };
  if (body.provider !== undefined && body.provider !== source.provider && body.model === undefined) delete merged.model;
  for (const field of REPLACED) if (body[field] !== undefined) Object.assign(merged, { [field]: body[field] });
  return merged;
}

export async function prepareFork({ body, prefix, env, settings, idempotencyKey, findEarlier, caller, origin }: PrepareForkInput): Promise<PreparedFork> {
  if (caller.kind !== "deployment") {
    const problems = creatorIssues({ tools: body.tools ?? [] }, { kind: "user", subject: prefix.subject ?? "" });
    if (problems.length > 0) throw invalidRequest("Invalid request body.", problems);
  }
  const allowHosts = parseAllowList(env.HTTP_TOOL_ALLOW);
  const issues = [...checkToolRefs(body.tools ?? [], allowHosts), ...capIssues(body, settings.limits)];
  if (issues.length > 0) throw invalidRequest("Invalid request body.", issues);
  const stored = forkBodyOf(prefix.body, body);
  const signing = checkToolSigning(stored.tools ?? [], signingKeysOf(env));
  if (signing !== undefined) throw invalidRequest(signing.message, signing.issues);
  const provider = body.provider ?? prefix.provider;
  if (body.provider !== undefined) {
    requireScriptedAllowed(provider, caller.kind === "user" ? caller : { kind: "deployment" }, settings.scriptedProvider);
    if (provider === "scripted" && caller.kind === "run") throw new ApiException(403, "A run token cannot move a fork to the scripted provider.");
  }
  const model = body.model ?? (body.provider === undefined || body.provider === prefix.provider ? prefix.model : resolveModel({}, env, provider));
  const unpriced = priceIssues(provider, model, settings.prices);
  if (unpriced.length > 0) throw invalidRequest(`No price is known for model ${JSON.stringify(model)}: add it to the PRICES setting.`, unpriced);
  const providerIssues = [...compactionIssues(provider, stored), ...providerOnlyIssues(stored.tools ?? [], provider)];
  if (providerIssues.length > 0) throw invalidRequest("Invalid request body.", providerIssues);
  if (body.messages !== undefined && prefix.openCalls.length > 0) {
    throw new ApiException(409, `Step ${prefix.atStep}'s turn has calls with no result in run ${prefix.runId} (${prefix.openCalls.join(", ")}): fork without messages (the fork runs them), or at another step.`);
  }

  const images = new ImageIntake();
  const added = body.messages === undefined ? undefined : await images.messages(body.messages);
  const upload = images.upload();
  const spec: ForkSpec = { cut: REPLACED.some((field) => body[field] !== undefined) || added !== undefined };
  if (added !== undefined) spec.added = added;
  if (body.maxSteps !== undefined) spec.maxSteps = body.maxSteps;
  const bodyHash = await sha256Hex(canonicalJson({ fork: prefix.runId, body }));
  const { id, token } = await credentialsFor(settings, idempotencyKey, findEarlier, `fork:${prefix.runId}:${caller.kind}`);
  const newRun: NewRun = { id, body: stored, model, provider, tokenHash: await sha256Hex(token), bodyHash, origin };
  if (prefix.subject !== undefined) {
    newRun.subject = prefix.subject;
    newRun.dayLimitUsd = (caller.kind === "user" ? caller.budgetUsdPerDay : undefined) ?? prefix.dayLimitUsd ?? settings.limits.subjectBudgetUsdPerDay;
  }
  return { newRun, token, spec, images: upload };
}
