// The HTTP-tool adapter (docs/http-tools.md): a tool call becomes one signed POST to the tool's URL,
// answered at once (`run`), or for an async tool taken as a job and answered later (start + wait,
// see ./async-http-tool.ts). Whatever goes wrong on the far side becomes an error result the model
// sees and can react to; only a cancel passes through, so the loop ends the call instead.
import type { AnyToolSpec, ToolContext, ToolOutput } from "../../loop/types";
import { hostOf, isUrlAllowed } from "./allow-list";
import { asyncHttpTool } from "./async-http-tool";
import { answerOf, failure } from "./http-answer";
import { postToTool } from "./http-post";
import { jsonSchemaValidator } from "../json-schema";
import { decodeSigningKeys, type SigningKeyBytes } from "./signing-keys";
import type { ToolDeps } from "../tool-deps";
import type { HttpToolRef } from "./http-tool-ref";

export type { HttpToolRef } from "./http-tool-ref";

export { DEFAULT_HTTP_TOOL_TIMEOUT_MS } from "./http-post";

export const OUTCOME_UNKNOWN = "Outcome unknown: this call may or may not have taken effect.";

export function createHttpTool(ref: HttpToolRef, deps: ToolDeps): AnyToolSpec {
  const validate = jsonSchemaValidator(ref.inputSchema);
  // Decoded once per loop start; a problem is reported per call, never thrown, so the run goes on.
  const signing = decodeSigningKeys(deps.signingKeys);
  /** What is checked before anything is sent: a refusal is the call's result. */
  const refuse = async (context: ToolContext): Promise<{ output: ToolOutput } | { keys: SigningKeyBytes }> => {
    // Checked again at call time: the list may have changed since the run was created.
    if (!isUrlAllowed(ref.url, deps.allowHosts)) {
      return { output: failure(`HTTP tool ${ref.name} may not call ${hostOf(ref.url)}: the host is not allowed.`) };
    }
    // Before beginOnce: a call refused here was never sent, so a later try is not "outcome unknown".
    if (!signing.ok) return { output: failure(`HTTP tool ${ref.name} was not called: ${signing.problem}.`) };
    if (ref.once === true && !(await deps.beginOnce(context.key))) return { output: failure(OUTCOME_UNKNOWN) };
    return { keys: signing.keys };
  };
  const spec: AnyToolSpec = {
    name: ref.name,
    description: ref.description,
    inputSchema: ref.inputSchema,
    validate,
    ...(ref.approval === true ? { approval: true } : {}),
  };
  if (ref.async === true) return { ...spec, ...asyncHttpTool(ref, deps, refuse) };
  return {
    ...spec,
    async run(input, context) {
      const checked = await refuse(context);
      if ("output" in checked) return checked.output;
      const posted = await postToTool(ref, deps, checked.keys, { runId: deps.runId, callId: context.callId, name: ref.name, input }, context);
      return posted.kind === "failed" ? posted.output : answerOf(ref.name, posted.response, posted.text);
    },
  };
}
