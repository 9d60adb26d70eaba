// What a chat POST asks of the run, from its last message, its trigger and the run's state
// (docs/api.md "AI SDK chat"): a continue or a queued message (mode "queue"), an answer (an ask's
// text, a tool part's output, an approval, a client toolset's batch), a regenerate (a retry of a
// failed run, else a fork: the chat route decides), or nothing that fits (409). The action is then
// done by the same calls as POST /v1/runs/{id}/messages, /answer, /retry and /fork, whose own
// checks decide (a continue of a failed run: their 409).
import type { RunView } from "../types";
import type { ChatCaps } from "./versions";
import { contentOfParts, type ContentPartInput } from "./ui-content";

type Content = string | ContentPartInput[];

/** `messageId`: the person's message's own id (the client's), kept by the run so the history gives it back. */
export type ChatAction =
  | { kind: "message"; content: Content; messageId?: string }
  | { kind: "answer"; body: { callId: string; content?: Content; approved?: boolean; isError?: boolean; results?: { callId: string; content: Content; isError?: boolean }[]; messageId?: string } }
  | { kind: "regenerate" }
  | { kind: "refused"; status: 400 | 409; message: string; issues?: { path: string; message: string }[] };

export type IncomingMessage = { id?: string; role: string; parts: Record<string, unknown>[] };

/** A tool output as answer content: text as it is, anything else as its JSON. */
function outputContent(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output ?? null);
}

function toolPart(message: IncomingMessage, callId: string): Record<string, unknown> | undefined {
  return message.parts.find((part) => typeof part.type === "string" && (part.type.startsWith("tool-") || part.type === "dynamic-tool") && part.toolCallId === callId);
}

/** An ask's or a client tool's answer from its part: the output, or the error (isError). */
function resultOf(part: Record<string, unknown> | undefined): { content: Content; isError?: true } | undefined {
  if (part?.state === "output-available") return { content: outputContent(part.output) };
  if (part?.state === "output-error") return { content: String(part.errorText ?? "Tool error."), isError: true };
  return undefined;
}

function noFit(run: RunView, what: string): ChatAction {
  const waits = run.waiting === undefined ? `is ${run.status}` : `waits for ${run.waiting.kind} call ${run.waiting.callId}`;
  return { kind: "refused", status: 409, message: `${what} fits no state of this run: it ${waits}.` };
}

function answerOf(message: IncomingMessage, run: RunView, caps: ChatCaps): ChatAction {
  const waiting = run.waiting;
  if (run.status !== "waiting" || waiting === undefined) return noFit(run, "An assistant message (a tool's output or an approval)");
  const { callId } = waiting;
  if (waiting.kind === "approval") {
    const part = toolPart(message, callId);
    const approval = part?.approval as { approved?: unknown } | undefined;
    // v6 on: the approval-responded part; v5 (and a client that answers it as a tool): an output `{ approved }`.
    const approved = caps.approvals && typeof approval?.approved === "boolean" ? approval.approved : (part?.output as { approved?: unknown } | undefined)?.approved;
    if (typeof approved !== "boolean") return noFit(run, "A message without the approval of that call");
    return { kind: "answer", body: { callId, approved } };
  }
  if (waiting.kind === "client-toolset") {
    const results: { callId: string; content: Content; isError?: boolean }[] = [];
    for (const action of waiting.batch ?? []) {
      const result = resultOf(toolPart(message, action.callId));
      if (result === undefined) break;
      results.push({ callId: action.callId, ...result });
      if (result.isError === true) break;
    }
    if (results.length === 0) return noFit(run, "A message without the batch's results");
    return { kind: "answer", body: { callId, results } };
  }
  const result = resultOf(toolPart(message, callId));
  if (result === undefined) return noFit(run, `A message without the output of call ${callId}`);
  return { kind: "answer", body: { callId, ...result } };
}

export function chatAction(input: { message: IncomingMessage; trigger: string; run: RunView; caps: ChatCaps }): ChatAction {
  const { message, trigger, run, caps } = input;
  if (trigger === "regenerate-message") return { kind: "regenerate" };
  if (message.role === "assistant") return answerOf(message, run, caps);
  if (message.role !== "user") return { kind: "refused", status: 400, message: "Invalid request body.", issues: [{ path: "messages.role", message: "The last message must be the user's or the assistant's." }] };
  const parsed = contentOfParts(message.parts);
  if ("issue" in parsed) return { kind: "refused", status: 400, message: "Invalid request body.", issues: [parsed.issue] };
  const id = message.id === undefined || message.id === "" ? {} : { messageId: message.id };
  // A person's text while the run asks is the ask's answer; otherwise a message (a continue, or queued on a running run).
  if (run.status === "waiting" && run.waiting?.kind === "ask") return { kind: "answer", body: { callId: run.waiting.callId, content: parsed.content, ...id } };
  return { kind: "message", content: parsed.content, ...id };
}
