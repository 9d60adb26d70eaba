// The HTTP-tool adapter (docs/http-tools.md): a tool call becomes one signed POST to the tool's URL.
// Whatever goes wrong on the far side becomes an error result the model sees and can react to;
// only a cancel passes through as a thrown abort, so the loop ends the call instead of reporting it.
import { z } from "zod";
import type { ToolRef } from "../api/types";
import { readAtMost, StreamTooLarge } from "../lib/read-at-most";
import type { AnyToolSpec, ToolContext, ToolOutput } from "../loop/types";
import { hostOf, isUrlAllowed } from "./allow-list";
import { jsonSchemaValidator } from "./json-schema";
import { signRequest } from "./sign-request";
import { decodeSigningKeys, type SigningKeyBytes } from "./signing-keys";
import type { ToolDeps } from "./tool-deps";

export type HttpToolRef = Extract<ToolRef, { type: "http" }>;

export const DEFAULT_HTTP_TOOL_TIMEOUT_MS = 30_000;
/** Larger answers would not fit the journal's row; the model gets an error instead. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const SNIPPET_LENGTH = 300;

export const OUTCOME_UNKNOWN = "Outcome unknown: this call may or may not have taken effect.";

const answerSchema = z.object({
  content: z.union([
    z.string(),
    z.array(
      z.union([
        z.object({ type: z.literal("text"), text: z.string() }),
        z.object({ type: z.literal("image"), mimeType: z.string(), hash: z.string(), path: z.string().optional() }),
      ]),
    ),
  ]),
  isError: z.boolean().optional(),
  costUsd: z.number().nonnegative().optional(),
});

function failure(message: string): ToolOutput {
  return { content: message, isError: true };
}

function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The body as text, refusing more than MAX_ANSWER_BYTES without reading it all. */
async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return "";
  return new TextDecoder().decode(await readAtMost(response.body, MAX_ANSWER_BYTES));
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`;
}

function snippet(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > SNIPPET_LENGTH ? `${line.slice(0, SNIPPET_LENGTH - 1)}…` : line;
}

function outputOf(response: Response, text: string, name: string): ToolOutput {
  const type = mediaType(response);
  if (type === "text/plain") return { content: text };
  if (type !== "" && !/^application\/([\w.-]+\+)?json$/.test(type)) {
    return failure(`HTTP tool ${name} answered with Content-Type ${type}; expected application/json or text/plain.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failure(`HTTP tool ${name} answered with a body that is not JSON.`);
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    return failure(`HTTP tool ${name} answered JSON without a valid "content" (expected { content, isError?, costUsd? }).`);
  }
  const output: ToolOutput = { content: parsed.data.content };
  if (parsed.data.isError === true) output.isError = true;
  if (parsed.data.costUsd !== undefined) output.costUsd = parsed.data.costUsd;
  return output;
}

async function send(ref: HttpToolRef, deps: ToolDeps, keys: SigningKeyBytes, input: unknown, context: ToolContext): Promise<ToolOutput> {
  const idempotencyKey = deps.idempotencyKey(context.key);
  const body = JSON.stringify({ runId: deps.runId, callId: context.callId, name: ref.name, input });
  // The Idempotency-Key is the message id, so a resend of the same call is the same message to
  // the tool server (only the timestamp and so the signature change).
  const signature = await signRequest(keys, idempotencyKey, deps.now(), body);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const response = await deps.fetch(ref.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey, ...signature },
      body,
      // A redirect could lead outside the allow list: it is reported, never followed.
      redirect: "manual",
      signal,
    });
    const text = await readCapped(response);
    if (response.status >= 300 && response.status < 400) {
      return failure(`HTTP tool ${ref.name} answered ${response.status} (a redirect); redirects are not followed.`);
    }
    if (response.status < 200 || response.status >= 300) {
      const detail = snippet(text);
      return failure(`HTTP tool ${ref.name} answered ${response.status}${detail === "" ? "." : `: ${detail}`}`);
    }
    return outputOf(response, text, ref.name);
  } catch (error) {
    // A cancel is not the tool's failure: it passes on so the loop stops the call.
    if (context.signal.aborted) throw context.signal.reason ?? error;
    if (timeout.aborted) return failure(`HTTP tool ${ref.name} did not answer within ${duration(timeoutMs)}.`);
    if (error instanceof StreamTooLarge) return failure(`HTTP tool ${ref.name} answered more than 1 MiB.`);
    const reason = error instanceof Error ? error.message : String(error);
    return failure(`HTTP tool ${ref.name} could not be reached: ${reason}`);
  }
}

export function createHttpTool(ref: HttpToolRef, deps: ToolDeps): AnyToolSpec {
  const validate = jsonSchemaValidator(ref.inputSchema);
  // Decoded once per loop start; a problem is reported per call, never thrown, so the run goes on.
  const signing = decodeSigningKeys(deps.signingKeys);
  return {
    name: ref.name,
    description: ref.description,
    inputSchema: ref.inputSchema,
    validate,
    ...(ref.approval === true ? { approval: true } : {}),
    async run(input, context) {
      // Checked again at call time: the list may have changed since the run was created.
      if (!isUrlAllowed(ref.url, deps.allowHosts)) {
        return failure(`HTTP tool ${ref.name} may not call ${hostOf(ref.url)}: the host is not allowed.`);
      }
      // Before beginOnce: a call refused here was never sent, so a later try is not "outcome unknown".
      if (!signing.ok) return failure(`HTTP tool ${ref.name} was not called: ${signing.problem}.`);
      if (ref.once === true && !(await deps.beginOnce(context.key))) return failure(OUTCOME_UNKNOWN);
      return send(ref, deps, signing.keys, input, context);
    },
  };
}
