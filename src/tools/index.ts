// The tools a run can use: built-ins by name, HTTP tools and client tools from their refs. The
// edge calls checkToolRefs and checkToolSigning to refuse a run (400, nothing created); the run
// object calls buildTools, with the same rules, every time it (re)starts the loop.
import type { ToolRef } from "../api/types";
import { actionToolName } from "../loop/tool-calls/toolset";
import type { AnyToolSpec } from "../loop/types";
import { hostOf, isUrlAllowed } from "./http/allow-list";
import { askTool } from "./builtin/ask";
import { createAgentTool } from "./agent-tool";
import { calculatorTool } from "./builtin/calculator";
import { createClientTool } from "./client-tool";
import { createToolsetSpecs, offeredNameIssues } from "./client-toolset";
import { createCurrentTimeTool } from "./builtin/current-time";
import { createHttpTool } from "./http/http-tool";
import { patternProblems } from "./linear-regexp";
import { decodeSigningKeys } from "./http/signing-keys";
import type { ToolDeps } from "./tool-deps";

export { parseAllowList, isUrlAllowed } from "./http/allow-list";
export { DEFAULT_HTTP_TOOL_TIMEOUT_MS, OUTCOME_UNKNOWN } from "./http/http-tool";
export { signingKeysOf } from "./http/signing-keys";
export type { ToolDeps } from "./tool-deps";
export { providerOnlyIssues } from "./client-toolset";
export { buildGuardrails, isDataGuardrail, type GuardrailDeps } from "./guardrails/build-guardrails";
export { guardrailEntries, guardrailRefIssues, guardrailSigningIssues } from "./guardrails/guardrail-refs";

export const BUILT_IN_TOOLS = ["ask", "calculator", "current_time"] as const;
export type BuiltInToolName = (typeof BUILT_IN_TOOLS)[number];

function isBuiltIn(name: string): name is BuiltInToolName {
  return (BUILT_IN_TOOLS as readonly string[]).includes(name);
}

function builtIn(name: BuiltInToolName, deps: ToolDeps): AnyToolSpec {
  switch (name) {
    case "ask":
      return askTool;
    case "calculator":
      return calculatorTool;
    case "current_time":
      return createCurrentTimeTool(deps.now);
  }
}

/**
 * What is wrong with a run's tools against this deployment (built-in names, hosts on the allow
 * list), and two tools the model would see under one name (a toolset's `<toolset>__<action>` and
 * another tool): paths like "tools.2", empty when they are fine. Unique names of the refs are the
 * body schema's rule (src/api/schemas/runs/create-run-schemas.ts), checked once there.
 */
export function checkToolRefs(refs: readonly ToolRef[], allowHosts: readonly string[]): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  refs.forEach((ref, index) => {
    if (typeof ref === "string" && !isBuiltIn(ref)) {
      issues.push({ path: `tools.${index}`, message: `Unknown built-in tool: ${ref}. Built-in tools: ${BUILT_IN_TOOLS.join(", ")}.` });
    }
    if (typeof ref !== "string" && ref.type === "http" && !isUrlAllowed(ref.url, allowHosts)) {
      const host = hostOf(ref.url);
      issues.push({ path: `tools.${index}.url`, message: `HTTP tools may not call ${host}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` });
    }
  });
  issues.push(...refs.flatMap((ref, index) => schemaPatternIssues(ref, index)));
  // A toolset's action seen by the model as `<toolset>__<action>` may meet another tool's name.
  if (issues.length === 0) issues.push(...offeredNameIssues(refs));
  return issues;
}

/** Patterns in a tool's input schemas that cannot run in linear time (src/tools/linear-regexp.ts), named by tool. */
function schemaPatternIssues(ref: ToolRef, index: number): { path: string; message: string }[] {
  if (typeof ref === "string") return [];
  const schemas: { at: string; tool: string; schema: unknown }[] = [];
  if (ref.type === "agent" && ref.inputSchema !== undefined) schemas.push({ at: `tools.${index}.inputSchema`, tool: ref.name, schema: ref.inputSchema });
  if (ref.type === "http" || ref.type === "client") schemas.push({ at: `tools.${index}.inputSchema`, tool: ref.name, schema: ref.inputSchema });
  if (ref.type === "client-toolset") {
    (ref.actions ?? []).forEach((action, at) => schemas.push({ at: `tools.${index}.actions.${at}.inputSchema`, tool: actionToolName(ref.name, action.name), schema: action.inputSchema }));
  }
  return schemas.flatMap(({ at, tool, schema }) =>
    patternProblems(schema).map((problem) => ({ path: `${at}.${problem.path}`, message: `Tool ${tool}: ${problem.message}.` })),
  );
}

/**
 * Why a run's HTTP tools could not be sent, with an issue at each one ("tools.2"), or undefined
 * when the run has none or `signingKeys` (see signingKeysOf) can sign their requests. A problem
 * of the deployment's settings, not of the refs, so it is checked apart from checkToolRefs.
 */
export function checkToolSigning(refs: readonly ToolRef[], signingKeys: readonly string[]): { message: string; issues: { path: string; message: string }[] } | undefined {
  const httpTools = refs.flatMap((ref, index) => (typeof ref !== "string" && ref.type === "http" ? [index] : []));
  if (httpTools.length === 0) return undefined;
  const decoded = decodeSigningKeys(signingKeys);
  if (decoded.ok) return undefined;
  return {
    message: `HTTP tools are not available: ${decoded.problem}.`,
    issues: httpTools.map((index) => ({ path: `tools.${index}`, message: `This deployment cannot sign HTTP tool requests: ${decoded.problem}.` })),
  };
}

/** The loop's tool specs for `refs` (assumed checked by checkToolRefs); provider tools are not among them (see providerToolsOf). */
export function buildTools(refs: readonly ToolRef[], deps: ToolDeps): AnyToolSpec[] {
  return refs.flatMap((ref): AnyToolSpec[] => {
    if (typeof ref === "string") {
      if (!isBuiltIn(ref)) throw new Error(`Unknown built-in tool: ${ref}.`);
      return [builtIn(ref, deps)];
    }
    switch (ref.type) {
      case "http":
        return [createHttpTool(ref, deps)];
      case "client":
        return [createClientTool(ref)];
      case "client-toolset":
        return createToolsetSpecs(ref);
      case "provider":
        return [];
      case "agent":
        return [createAgentTool(ref, deps)];
    }
  });
}

/** The provider tools of `refs`, their entries as given: the loop passes them to every request. */
export function providerToolsOf(refs: readonly ToolRef[]): Record<string, unknown>[] {
  return refs.flatMap((ref) => (typeof ref !== "string" && ref.type === "provider" ? [{ ...ref.spec }] : []));
}
