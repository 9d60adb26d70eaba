// What the loop does with one tool call: a pure decision from the call, the tools, the history's
// repeat count and the caller's approvals. Replays make the same decision, so keys stay stable.
import { REPEAT_LIMIT, repeatedCallText } from "../guards/repeat-guard";
import { decisionOf } from "./decision";
import { validateInput } from "./tool-definition";
import { actionOf, callLabel, specOf } from "./toolset";
import type { AnyToolSpec, Asked, ToolCall } from "../types";

export const ASK_TOOL = "ask";
export const ASK_ONE_AT_A_TIME = "Ask one question at a time.";
export const DENIED = "Denied by the person.";

export type CallPlan =
  /** The loop answers the call itself (an error result); `notRun`: the call is reported as never run. */
  | { kind: "reply"; text: string; notRun?: boolean }
  | { kind: "wait"; asked: Asked }
  | { kind: "run"; spec: AnyToolSpec; input: unknown };

export type PlanContext = {
  tools: ReadonlyMap<string, AnyToolSpec>;
  /** How many times this call's fingerprint has been seen, this call included. */
  repeatCount: number;
  /** True when an earlier call of the same turn was a valid ask. */
  askedThisTurn: boolean;
  approvals: Readonly<Record<string, boolean>>;
};

function unknownToolText(call: ToolCall, tools: ReadonlyMap<string, AnyToolSpec>): string {
  const names = [...tools.keys()];
  return `Unknown tool: ${callLabel(call)}. Available tools: ${names.length === 0 ? "none" : names.join(", ")}.`;
}

function invalidInputText(name: string, issues: { path: string; message: string }[]): string {
  const lines = issues.map((issue) => `- ${issue.path === "" ? "(input)" : issue.path}: ${issue.message}`);
  return `Invalid input for ${name}:\n${lines.join("\n")}`;
}

export function planCall(call: ToolCall, context: PlanContext): CallPlan {
  const spec = specOf(call, context.tools);
  if (spec === undefined) return { kind: "reply", text: unknownToolText(call, context.tools) };
  const checked = validateInput(spec, call.input);
  if (!checked.ok) return { kind: "reply", text: invalidInputText(call.name, checked.issues) };
  // A toolset's actions act on a screen or a page whose state changes: the same input again is no loop.
  if (context.repeatCount >= REPEAT_LIMIT && spec.toolset === undefined) return { kind: "reply", text: repeatedCallText(call.name) };
  const asked = { callId: call.id, name: call.name, input: checked.value };
  if (call.name === ASK_TOOL) {
    if (context.askedThisTurn) return { kind: "reply", text: ASK_ONE_AT_A_TIME };
    return { kind: "wait", asked: { kind: "ask", ...asked } };
  }
  if (spec.client === true && spec.toolset !== undefined) {
    const batch = [{ callId: call.id, action: actionOf(call, spec), input: checked.value }];
    return { kind: "wait", asked: { kind: "client-toolset", callId: call.id, name: spec.toolset.name, input: checked.value, batch } };
  }
  if (spec.client === true) return { kind: "wait", asked: { kind: "client-tool", ...asked } };
  if (spec.approval === true) {
    const decision = decisionOf(context.approvals, call.id);
    if (decision === undefined) return { kind: "wait", asked: { kind: "approval", ...asked } };
    if (!decision) return { kind: "reply", text: DENIED };
  }
  return { kind: "run", spec, input: checked.value };
}
