// An AG-UI thread of a stored agent is one Ratchet run: its id is derived from the agent's name and
// the thread's id as an Idempotency-Key of the caller's (src/http/intake/new-run.ts), so the same
// thread reaches the same run, with no table to keep, and two subjects' threads of one id are two
// runs. The thread's first request makes the run through the one create path (startRun), its
// messages the run's, its tools client tools of the run.
import type { Context } from "hono";
import type { RunAgentInput } from "../../api/ag-ui/run-input";
import { userText } from "../../api/ag-ui/run-input";
import type { ToolRef } from "../../api/types";
import type { AppEnv, Creator } from "../app-env";
import type { Caller } from "../auth/auth";
import { invalidRequest } from "../errors";
import { credentialsFor, scopeOf } from "../intake/new-run";
import { startRun } from "../intake/start-run";
import { runStub, type RunStub } from "../run-stub";

export function threadKey(agent: string, threadId: string): string {
  return `ag-ui:${agent}:${threadId}`;
}

function creatorOf(caller: Exclude<Caller, { kind: "run" }>): Creator {
  return caller.kind === "deployment" ? { kind: "deployment" } : { kind: "user", subject: caller.subject };
}

/** The thread's run, if it was made: its id and object. */
export async function findThreadRun(c: Context<AppEnv>, caller: Exclude<Caller, { kind: "run" }>, agent: string, threadId: string): Promise<{ runId: string; run: RunStub; exists: boolean }> {
  const settings = c.var.settings;
  const { id } = await credentialsFor(settings, threadKey(agent, threadId), (candidate) => runStub(c.env, candidate.id).exists(), scopeOf(creatorOf(caller)));
  const run = runStub(c.env, id);
  return { runId: id, run, exists: await run.exists() };
}

/** The run body's messages from the thread's first request: its user and assistant text, the context after the last user message. */
function firstMessages(input: RunAgentInput): { role: "user" | "assistant"; content: string }[] {
  const messages: { role: "user" | "assistant"; content: string }[] = [];
  for (const message of input.messages) {
    if (message.role === "user") messages.push({ role: "user", content: userText(message) });
    else if (message.role === "assistant" && typeof message.content === "string" && message.content !== "") messages.push({ role: "assistant", content: message.content });
  }
  const last = messages.at(-1);
  if (last?.role !== "user" || last.content === "") throw invalidRequest("Invalid request body.", [{ path: "messages", message: "A thread's first run needs a user message with text, last." }]);
  if (input.context !== undefined && input.context.length > 0) {
    last.content += `\n\nContext:\n${input.context.map((item) => `- ${item.description}: ${item.value}`).join("\n")}`;
  }
  return messages;
}

export function clientToolsOf(input: RunAgentInput): ToolRef[] {
  return (input.tools ?? []).map((tool) => ({ type: "client", name: tool.name, description: tool.description, inputSchema: (tool.parameters as Record<string, unknown> | undefined) ?? { type: "object", properties: {} } }));
}

/** Makes the thread's run (the caller was admitted as a creator): the agent's, with the thread's messages and tools. */
export async function startThreadRun(c: Context<AppEnv>, agent: string, input: RunAgentInput): Promise<string> {
  const metadata = typeof input.forwardedProps === "object" && input.forwardedProps !== null && !Array.isArray(input.forwardedProps) && Object.keys(input.forwardedProps).length > 0 ? { agUiForwardedProps: input.forwardedProps } : undefined;
  const { run } = await startRun({
    body: { agent, messages: firstMessages(input), ...(metadata === undefined ? {} : { metadata }) } as never,
    env: c.env,
    settings: c.var.settings,
    creator: c.var.creator,
    origin: new URL(c.req.url).origin,
    idempotencyKey: threadKey(agent, input.threadId),
    clientTools: clientToolsOf(input),
  });
  return run.id;
}
