// An agent tool (docs/children.md): a call starts a child run from the tool's template, and its
// result is the child's answer. Like an async HTTP tool it is start + wait: the start is one
// journaled step (the child's id is derived from the run and the call's key, so a start made again
// after a crash finds the same child), and the wait only reads what the run holds about the child.
// No end yet throws ToolPending: the run sleeps with no alarm until the child reports its end.
import type { ChildEnd } from "../api/child-runs";
import type { AgentToolRef } from "../api/types";

export type { ChildEnd };
import { ToolPending } from "../loop/tool-calls/tool-pending";
import type { AnyToolSpec, ToolOutput } from "../loop/types";
import { failure } from "./http/http-answer";
import { jsonSchemaValidator } from "./json-schema";
import type { ChildRuns, ChildSettled, ChildStart, ToolDeps } from "./tool-deps";

export type { ChildRuns, ChildSettled, ChildStart };

/** What the journal stores for an agent call's start. */
export type AgentHandle = { kind: "result"; output: ToolOutput } | { kind: "child"; key: string; childId: string };

/** The input of an agent tool declared without an inputSchema. */
export const DEFAULT_AGENT_INPUT_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: { task: { type: "string", description: "What the agent should do: its first user message." } },
  required: ["task"],
  additionalProperties: false,
};

/** The child's first user message: the task, or the JSON input for a tool with its own schema. */
export function taskOf(ref: AgentToolRef, input: unknown): string {
  if (ref.inputSchema === undefined) return String((input as { task?: unknown }).task ?? "");
  return JSON.stringify(input);
}

/** The call's result from the child's end: its `final` as JSON, its finalText, or an error that says why and names the child. */
export function resultOfEnd(name: string, end: ChildEnd): ToolOutput {
  const who = `Agent ${name} (child run ${end.childId})`;
  if (end.status === "finished") {
    if (end.hasFinal) return { content: JSON.stringify(end.final) ?? "null", value: end.final };
    if (end.finalText !== undefined && end.finalText.trim() !== "") return { content: end.finalText };
    return failure(`${who} ended with no answer (stopped by ${end.stoppedBy ?? "done"}).`);
  }
  if (end.status === "failed") return failure(`${who} failed: ${end.error?.message ?? "unknown error"}.`);
  if (end.status === "cancelled") return failure(`${who} was cancelled.`);
  return failure(`${who} ended ${end.status}.`);
}

export function createAgentTool(ref: AgentToolRef, deps: ToolDeps): AnyToolSpec {
  const schema = ref.inputSchema ?? DEFAULT_AGENT_INPUT_SCHEMA;
  const now = (output: ToolOutput): { handle: AgentHandle } => ({ handle: { kind: "result", output } });
  return {
    name: ref.name,
    description: ref.description,
    inputSchema: schema,
    validate: jsonSchemaValidator(schema),
    async start(input, context) {
      const children = deps.children;
      if (children === undefined) return now(failure(`Agent ${ref.name} was not run: this run cannot start child runs.`));
      const started = await children.start({ key: context.key, callId: context.callId, name: ref.name, task: taskOf(ref, input), template: ref.run });
      if (!started.ok) return now(failure(`Not run: ${started.reason}.`));
      return { handle: { kind: "child", key: context.key, childId: started.childId } satisfies AgentHandle };
    },
    async wait(handle) {
      const started = handle as AgentHandle;
      if (started.kind === "result") return started.output;
      const settled = deps.children?.settle(started.key) ?? { kind: "unknown" };
      if (settled.kind === "ended") return resultOfEnd(ref.name, settled.end);
      if (settled.kind === "unknown") return failure(`Agent ${ref.name} (child run ${started.childId}) is not known to this run any more.`);
      throw new ToolPending(started.key);
    },
  };
}
