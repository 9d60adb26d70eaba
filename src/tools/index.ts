// The tools a run can use: built-ins by name, HTTP tools and client tools from their refs. The
// edge calls checkToolRefs and checkToolSigning to refuse a run (400, nothing created); the run
// object calls buildTools, with the same rules, every time it (re)starts the loop.
import type { ToolRef } from "../api/types";
import type { AnyToolSpec } from "../loop/types";
import { hostOf, isUrlAllowed } from "./allow-list";
import { askTool } from "./ask";
import { calculatorTool } from "./calculator";
import { createClientTool } from "./client-tool";
import { createCurrentTimeTool } from "./current-time";
import { createHttpTool } from "./http-tool";
import { decodeSigningKeys } from "./signing-keys";
import type { ToolDeps } from "./tool-deps";

export { parseAllowList, isUrlAllowed } from "./allow-list";
export { DEFAULT_HTTP_TOOL_TIMEOUT_MS, OUTCOME_UNKNOWN } from "./http-tool";
export { signingKeysOf } from "./signing-keys";
export type { ToolDeps } from "./tool-deps";

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
 * list): paths like "tools.2", empty when they are fine. Unique names are the body schema's rule
 * (src/api/schemas.ts), checked once there.
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
  return issues;
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

/** The loop's tool specs for `refs` (assumed checked by checkToolRefs). */
export function buildTools(refs: readonly ToolRef[], deps: ToolDeps): AnyToolSpec[] {
  return refs.map((ref) => {
    if (typeof ref === "string") {
      if (!isBuiltIn(ref)) throw new Error(`Unknown built-in tool: ${ref}.`);
      return builtIn(ref, deps);
    }
    return ref.type === "http" ? createHttpTool(ref, deps) : createClientTool(ref);
  });
}
