// Client toolsets: named groups of actions the client answers (a computer, a browser). Pure rules
// of routing and batching, shared by the loop and the run object:
//
//   routing   a call that names a toolset (ToolCall.toolset: a provider-native toolset's action)
//             goes to that toolset's spec and nowhere else; any other call goes by its name, so an
//             action offered as its own tool ("<toolset>__<action>") can never reach a plain tool
//             named like the action, nor a plain call a native toolset.
//   batching  all of one turn's open actions of a toolset reach the client as one batch, in call
//             order, and are answered together (see toolset-batch.ts).
//   halting   once an action of a toolset fails in a turn (an error result from the client, or a
//             call the loop answered itself as an error), the toolset's later actions of that turn
//             are not run: the loop answers them HALT_TEXT, reported as not run.
import type { AnyToolSpec, Asked, ChatMessage, ToolCall } from "../types";

/** The name the model sees for an action of a toolset the run declares itself. */
export function actionToolName(toolset: string, action: string): string {
  return `${toolset}__${action}`;
}

/** What the model gets for a toolset's action not run because an earlier one of the same turn failed. */
export function haltText(toolset: string): string {
  return `Not run: an earlier action of toolset ${toolset} failed.`;
}

/** The spec a call goes to, or undefined (an unknown tool). */
export function specOf(call: ToolCall, tools: ReadonlyMap<string, AnyToolSpec>): AnyToolSpec | undefined {
  if (call.toolset !== undefined) {
    const spec = tools.get(call.toolset);
    return spec?.toolset?.members === true && spec.toolset.name === call.toolset ? spec : undefined;
  }
  const spec = tools.get(call.name);
  return spec?.toolset?.members === true ? undefined : spec;
}

/** True for a call that goes to a toolset's action (such calls are not counted by the repeat guard). */
export function isToolsetCall(call: ToolCall, tools: ReadonlyMap<string, AnyToolSpec>): boolean {
  return specOf(call, tools)?.toolset !== undefined;
}

/** The toolset action a call of `spec` is. */
export function actionOf(call: ToolCall, spec: AnyToolSpec): string {
  if (spec.toolset?.members === true) return call.name;
  return spec.toolset?.action ?? spec.name;
}

/** How an unknown call reads in "Unknown tool: …": a toolset's action names both. */
export function callLabel(call: ToolCall): string {
  return call.toolset === undefined ? call.name : `${call.toolset}.${call.name}`;
}

/**
 * The waiting of a turn so far, joined with the next call that waits: the first wait stays, and
 * an action of the same toolset as a waiting batch joins that batch (in call order).
 */
export function joinWait(current: Asked | undefined, next: Asked): Asked {
  if (current === undefined) return next.batch === undefined ? next : { ...next, batch: [...next.batch] };
  if (current.kind === "client-toolset" && next.kind === "client-toolset" && current.name === next.name) {
    current.batch = [...(current.batch ?? []), ...(next.batch ?? [])];
  }
  return current;
}

/** Ids of the calls answered with an error after the newest assistant turn at `turn`. */
export function erroredAfter(messages: ChatMessage[], turn: number): Set<string> {
  const ids = new Set<string>();
  for (const message of messages.slice(turn + 1)) if (message.role === "tool" && message.isError === true) ids.add(message.toolCallId);
  return ids;
}
