// What the model may call on a request: every tool, or on the last step none (or only the finish tools).
import type { ToolDefinition } from "../types";

export function defaultFinishNote(finishTools: string[]): string {
  if (finishTools.length === 0) return "This is the last step. Answer now with what you have; no tools can be called.";
  return `This is the last step. Call ${finishTools.join(" or ")} now with what you have.`;
}

/**
 * The tools of one request. On the last step the model gets no callable tool: without finish
 * tools every definition stays listed with tool_choice "none" (so the cached prefix holds); with
 * finish tools only those are offered.
 */
export function offeredTools(
  definitions: ToolDefinition[],
  finishTools: ReadonlySet<string>,
  last: boolean,
): { tools: ToolDefinition[]; toolChoice: "auto" | "none" } {
  if (!last || definitions.length === 0) return { tools: definitions, toolChoice: "auto" };
  if (finishTools.size === 0) return { tools: definitions, toolChoice: "none" };
  return { tools: definitions.filter((tool) => finishTools.has(tool.name)), toolChoice: "auto" };
}
