// From a validated POST /v1/runs body to what the run object stores: defaults resolved, tools
// checked against this deployment, images stored, id and token made (or derived from the
// Idempotency-Key), and the hashes the object needs. Every refusal happens before anything is
// stored, so a 400 leaves nothing behind.
import { canonicalJson } from "../loop/canonical-json";
import type { CreateRunInput } from "../api/schemas";
import type { CreateRunBody, NewRun } from "../api/types";
import { checkToolRefs, checkToolSigning, parseAllowList, signingKeysOf } from "../tools";
import { sha256Hex } from "./encoding";
import { invalidRequest } from "./errors";
import { idempotentRunCredentials, newRunCredentials, runIdKey } from "./ids";
import { ImageIntake } from "./images";

/** Used only when DEFAULT_MODEL is unset or empty. */
export const FALLBACK_MODEL = "claude-sonnet-5-5";

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/**
 * The provider: as asked; else "scripted" when the body brings a script (it is for nothing else);
 * else "anthropic" when this deployment has a key, "scripted" when it has none.
 */
export function resolveProvider(body: CreateRunInput, env: Env): "anthropic" | "scripted" {
  const provider = body.provider ?? (body.script !== undefined ? "scripted" : nonEmpty(env.ANTHROPIC_API_KEY) ? "anthropic" : "scripted");
  if (provider === "anthropic" && !nonEmpty(env.ANTHROPIC_API_KEY)) {
    throw invalidRequest('Provider "anthropic" is not available: this deployment has no ANTHROPIC_API_KEY.', [
      { path: "provider", message: "No Anthropic key is configured." },
    ]);
  }
  return provider;
}

export function resolveModel(body: CreateRunInput, env: Env): string {
  return body.model ?? (nonEmpty(env.DEFAULT_MODEL) ? env.DEFAULT_MODEL : FALLBACK_MODEL);
}

export type PreparedRun = { newRun: NewRun; token: string };

export async function prepareRun(body: CreateRunInput, env: Env, idempotencyKey: string | undefined): Promise<PreparedRun> {
  const toolIssues = checkToolRefs(body.tools ?? [], parseAllowList(env.HTTP_TOOL_ALLOW));
  if (toolIssues.length > 0) throw invalidRequest("Invalid tools.", toolIssues);
  const signing = checkToolSigning(body.tools ?? [], signingKeysOf(env));
  if (signing !== undefined) throw invalidRequest(signing.message, signing.issues);
  const provider = resolveProvider(body, env);
  const model = resolveModel(body, env);

  const images = new ImageIntake();
  const stored: CreateRunBody = { ...body, messages: await images.messages(body.messages) };
  await images.commit(env.BLOBS);

  const { id, token } =
    idempotencyKey === undefined ? await newRunCredentials(runIdKey(env)) : await idempotentRunCredentials(env.API_TOKEN, runIdKey(env), idempotencyKey);
  const [tokenHash, bodyHash] = await Promise.all([sha256Hex(token), sha256Hex(canonicalJson(stored))]);
  return { newRun: { id, body: stored, model, provider, tokenHash, bodyHash }, token };
}
