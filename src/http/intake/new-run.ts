// From a validated POST /v1/runs body to what the run object stores: the one intake
// (src/intake/admit-run.ts) decides whether the run may be made and completes its body (defaults,
// caps, tools, the caller's rights, provider, model and price, agent templates); this door adds
// what only a request has: its images checked and decoded, the id and token made (or derived from
// the Idempotency-Key), and the hashes the object needs. Every refusal happens before anything is
// stored, so a 400 leaves nothing behind.
import { MISSING_IMAGE, outsideReferences, type ImageUpload } from "../../api/images/images";
import type { CreateRunInput } from "../../api/schemas/runs/create-run-schemas";
import type { CreateRunBody, NewRun } from "../../api/types";
import { resolvedOf } from "../../intake/admit-run";
import type { Settings } from "../../config/settings";
import { canonicalJson } from "../../lib/text/canonical-json";
import type { Creator } from "../app-env";
import { sha256Hex } from "../../lib/text/encoding";
import { invalidRequest } from "../errors";
import { idempotentRunCredentials, newRunCredentials, type RunCredentials } from "../ids/ids";
import { ImageIntake } from "./images";
import { admitAtEdge } from "./admit";
import type { ResolvedAgentRun } from "../agents/agent-run-body";
import { withAgentTools } from "../agents/agent-tools";
import { readerOf } from "../auth/agent-auth";

export type PreparedRun = { newRun: NewRun; token: string; images: ImageUpload };

/**
 * Whether a run exists at the candidate's id: during a RUN_ID_KEY rotation a retried create may
 * belong to a run made under the previous key (the run object then compares the bodies).
 */
export type FindEarlier = (candidate: RunCredentials) => Promise<boolean>;

/**
 * Whose Idempotency-Keys these are: the deployment token's, or one subject's. The subject is
 * length-prefixed, so no subject and key can spell another pair's scope and key (`alice:x` with
 * key `y` is not `alice` with key `x:y`).
 */
export function scopeOf(creator: Creator): string {
  return creator.kind === "deployment" ? "deployment" : `subject:${creator.subject.length}:${creator.subject}`;
}

export async function credentialsFor(settings: Settings, idempotencyKey: string | undefined, findEarlier: FindEarlier, scope: string): Promise<RunCredentials> {
  const [current, ...previous] = settings.runIdKeys;
  if (idempotencyKey === undefined) return newRunCredentials(current!);
  for (const key of previous) {
    const earlier = await idempotentRunCredentials(key, scope, idempotencyKey);
    if (await findEarlier(earlier)) return earlier;
  }
  return idempotentRunCredentials(current!, scope, idempotencyKey);
}

export type PrepareRunInput = {
  body: CreateRunInput;
  env: Env;
  settings: Settings;
  idempotencyKey: string | undefined;
  findEarlier: FindEarlier;
  creator: Creator;
  /** A run of a stored agent: the agent's version is the intake's source (what its template holds was admitted when it was made), and the run's view names it. */
  agent?: Pick<ResolvedAgentRun, "agent" | "source">;
};

export async function prepareRun({ body, env, settings, idempotencyKey, findEarlier, creator, agent }: PrepareRunInput): Promise<PreparedRun> {
  const { messages, ...asked } = body;
  // Agent tools naming a stored agent become inline ones here, before the one intake (docs/agents.md).
  const fields = await withAgentTools(env, readerOf(creator), asked);
  const fromAgent = agent === undefined ? {} : { source: agent.source, ...resolvedOf(agent.source) };
  const admitted = admitAtEdge({ body: fields, caller: creator, env, settings, ...fromAgent });
  const images = new ImageIntake();
  const stored: CreateRunBody = { ...admitted.body, messages: await images.messages(messages) };
  const upload = images.upload();
  // A new run holds no images yet: one named by hash must come with its bytes in this request.
  const unknown = outsideReferences(upload).map((reference) => ({ path: reference.path, message: MISSING_IMAGE }));
  if (unknown.length > 0) throw invalidRequest("Invalid image.", unknown);
  const bodyHash = await sha256Hex(canonicalJson(stored));
  const { id, token } = await credentialsFor(settings, idempotencyKey, findEarlier, scopeOf(creator));
  const newRun: NewRun = { id, body: stored, model: admitted.model, provider: admitted.provider, tokenHash: await sha256Hex(token), bodyHash };
  if (admitted.subject !== undefined) newRun.subject = admitted.subject;
  if (agent !== undefined) newRun.agent = agent.agent;
  if (admitted.dayLimitUsd !== undefined) newRun.dayLimitUsd = admitted.dayLimitUsd;
  return { newRun, token, images: upload };
}
