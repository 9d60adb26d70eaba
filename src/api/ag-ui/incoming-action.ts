// What an AG-UI request asks of its thread's run, pure (docs/ag-ui.md "What a request does"): the
// `resume` list answers the interrupt the run waits on; a trailing `tool` message answers the client
// tool call it waits on; a trailing user message the client sent after a reply (the thread's first
// message made the run) continues the run, is queued on a running one, or answers a waiting ask;
// anything else asks nothing, and the stream follows the run.
import type { Issue } from "../schemas/error-schemas";
import type { AnswerBody, RunStatus, Waiting } from "../types";
import { userText, type ResumeEntry, type RunAgentInput } from "./run-input";

export type ThreadRun = { status: RunStatus; waiting?: Waiting };

export type AgUiAction =
  | { kind: "none" }
  | { kind: "answer"; body: AnswerBody & { content?: string } }
  | { kind: "message"; content: string; messageId: string }
  | { kind: "refused"; status: 400 | 409; message: string; issues?: Issue[] };

const DECLINED = "The person declined to answer.";

function payloadText(payload: unknown): string | undefined {
  if (typeof payload === "string") return payload;
  if (typeof payload === "object" && payload !== null) {
    const { answer, content } = payload as { answer?: unknown; content?: unknown };
    if (typeof answer === "string") return answer;
    if (typeof content === "string") return content;
  }
  return undefined;
}

function approvedOf(payload: unknown): boolean | undefined {
  if (payload === undefined || typeof payload === "boolean") return payload ?? true;
  if (typeof payload === "object" && payload !== null && typeof (payload as { approved?: unknown }).approved === "boolean") return (payload as { approved: boolean }).approved;
  return undefined;
}

function refusedAt(path: string, message: string): AgUiAction {
  return { kind: "refused", status: 400, message: "Invalid request body.", issues: [{ path, message }] };
}

function resumeAction(resume: ResumeEntry[], run: ThreadRun): AgUiAction {
  const waiting = run.waiting;
  if (run.status !== "waiting" || waiting === undefined) return { kind: "refused", status: 409, message: `The run has no open interrupt to resume: it is ${run.status}.` };
  if (resume.length !== 1) return refusedAt("resume", `Exactly one entry: the run waits on one interrupt (${waiting.callId}).`);
  const entry = resume[0]!;
  if (entry.interruptId !== waiting.callId) return refusedAt("resume.0.interruptId", `Not an open interrupt of this run: it waits on ${waiting.callId}.`);
  const callId = waiting.callId;
  const cancelled = entry.status === "cancelled";
  switch (waiting.kind) {
    case "approval": {
      const approved = cancelled ? false : approvedOf(entry.payload);
      if (approved === undefined) return refusedAt("resume.0.payload", 'An approval: {"approved": true} or {"approved": false} (or a boolean).');
      return { kind: "answer", body: { callId, approved } };
    }
    case "client-toolset": {
      if (cancelled) return refusedAt("resume.0.status", "A client toolset's batch is answered with its results: {\"results\": [...]} (POST /v1/runs/{id}/answer's).");
      const results = (entry.payload as { results?: unknown } | undefined)?.results;
      if (!Array.isArray(results)) return refusedAt("resume.0.payload", 'A client toolset\'s batch: {"results": [{"callId", "content", "isError"?}, ...]}.');
      return { kind: "answer", body: { callId, results: results as AnswerBody["results"] & object } };
    }
    default: {
      if (cancelled) return { kind: "answer", body: { callId, content: DECLINED, isError: true } };
      const text = waiting.kind === "client-tool" && entry.payload !== undefined && typeof entry.payload !== "string" ? JSON.stringify(entry.payload) : payloadText(entry.payload);
      if (text === undefined) return refusedAt("resume.0.payload", 'The answer: a string, or {"answer": "..."}.');
      return { kind: "answer", body: { callId, content: text } };
    }
  }
}

export function agUiAction(input: RunAgentInput, run: ThreadRun): AgUiAction {
  if (input.resume !== undefined && input.resume.length > 0) return resumeAction(input.resume, run);
  const last = input.messages.at(-1);
  if (last === undefined) return { kind: "none" };
  if (last.role === "tool") {
    const waiting = run.waiting;
    if (run.status !== "waiting" || waiting?.kind !== "client-tool" || waiting.callId !== last.toolCallId) return { kind: "none" };
    return { kind: "answer", body: { callId: last.toolCallId, content: last.content, ...(last.error === undefined ? {} : { isError: true }) } };
  }
  // A user message is new once the client holds a reply before it: the thread's first messages made the run.
  if (last.role !== "user" || !input.messages.some((message) => message.role !== "user")) return { kind: "none" };
  const content = userText(last);
  if (content === "") return refusedAt(`messages.${input.messages.length - 1}.content`, "A user message with text.");
  const waiting = run.waiting;
  if (run.status === "waiting" && waiting !== undefined) {
    if (waiting.kind !== "ask") return { kind: "refused", status: 409, message: `The run waits on ${waiting.kind} ${waiting.callId}: answer it with the run's \`resume\` (or a \`tool\` message for a client tool).` };
    return { kind: "answer", body: { callId: waiting.callId, content, messageId: last.id } };
  }
  return { kind: "message", content, messageId: last.id };
}
