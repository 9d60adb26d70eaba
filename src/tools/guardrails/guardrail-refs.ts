// What is wrong with a run's guardrails against this deployment (the one intake asks it, with
// paths like "guardrails.tool.1.url"): a pattern RE2 cannot run (in a regex check or a JSON Schema
// check's schema), an HTTP check's host not on HTTP_TOOL_ALLOW, HTTP checks without the keys to
// sign them. Who may ask for which kind is src/intake/caller-rights.ts's; a model check's provider
// src/intake/judge-model.ts's.
import type { Guardrails, GuardrailRef } from "../../api/types";
import { hostOf, isUrlAllowed } from "../http/allow-list";
import { decodeSigningKeys } from "../http/signing-keys";
import { linearPatternProblem, patternProblems } from "../linear-regexp";

type Issue = { path: string; message: string };

/** Every check with its path (`guardrails.<stage>.<index>`). */
export function guardrailEntries(guardrails: Guardrails | undefined): { path: string; ref: GuardrailRef }[] {
  if (guardrails === undefined) return [];
  return (["input", "tool", "output"] as const).flatMap((stage) => (guardrails[stage] ?? []).map((ref, index) => ({ path: `guardrails.${stage}.${index}`, ref })));
}

export function guardrailRefIssues(guardrails: Guardrails | undefined, allowHosts: readonly string[]): Issue[] {
  return guardrailEntries(guardrails).flatMap(({ path, ref }): Issue[] => {
    if (ref.type === "regex") {
      const problem = linearPatternProblem(ref.ignoreCase === true ? `(?i)${ref.pattern}` : ref.pattern);
      return problem === undefined ? [] : [{ path: `${path}.pattern`, message: `The ${problem}.` }];
    }
    if (ref.type === "json-schema") return patternProblems(ref.schema).map((problem) => ({ path: `${path}.schema.${problem.path}`, message: `Guardrail ${ref.name}: ${problem.message}.` }));
    if (ref.type === "http" && !isUrlAllowed(ref.url, allowHosts)) {
      return [{ path: `${path}.url`, message: `HTTP checks may not call ${hostOf(ref.url)}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` }];
    }
    return [];
  });
}

/** Why the run's HTTP checks could not be signed (TOOL_SIGNING_KEY), with an issue at each, or undefined. */
export function guardrailSigningIssues(guardrails: Guardrails | undefined, signingKeys: readonly string[]): { message: string; issues: Issue[] } | undefined {
  const http = guardrailEntries(guardrails).filter(({ ref }) => ref.type === "http");
  if (http.length === 0) return undefined;
  const decoded = decodeSigningKeys(signingKeys);
  if (decoded.ok) return undefined;
  return { message: `HTTP checks are not available: ${decoded.problem}.`, issues: http.map(({ path }) => ({ path, message: `This deployment cannot sign HTTP check requests: ${decoded.problem}.` })) };
}
