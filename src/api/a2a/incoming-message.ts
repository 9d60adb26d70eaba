// What an A2A message asks of an agent: with `taskId`, the answer to the call that task waits on
// (its text parts the answer; a data part `{approved}` an approval); with only `contextId` (the
// run id), the conversation's next question (a continue of the run); with neither, a new run.
import { A2A_ERRORS } from "./a2a-types";
import { A2aError, type IncomingA2aMessage } from "./json-rpc";
import { parseTaskId, type TaskRef } from "./task-ids";

export type IncomingAction =
  | { kind: "answer"; task: TaskRef; taskId: string; text?: string; approved?: boolean }
  | { kind: "continue"; runId: string; text: string }
  | { kind: "new"; text: string };

function unsupported(message: string): A2aError {
  return new A2aError(A2A_ERRORS.invalidParams, message, { issues: [{ path: "message.parts", message }] });
}

/** The message's text: its text parts, and any data part (other than an approval) as JSON, one per line. */
function textOf(message: IncomingA2aMessage): { text: string; approved?: boolean } {
  const lines: string[] = [];
  let approved: boolean | undefined;
  for (const part of message.parts) {
    if (part.text !== undefined) lines.push(part.text);
    else if (part.data !== undefined) {
      const data = part.data as { approved?: unknown } | null;
      if (typeof data === "object" && data !== null && typeof data.approved === "boolean" && Object.keys(data).length === 1) approved = data.approved;
      else lines.push(JSON.stringify(part.data));
    } else throw unsupported("Only text and data parts are taken: send files as links in the text.");
  }
  const result: { text: string; approved?: boolean } = { text: lines.join("\n") };
  if (approved !== undefined) result.approved = approved;
  return result;
}

export function actionOf(message: IncomingA2aMessage): IncomingAction {
  const { text, approved } = textOf(message);
  if (message.taskId !== undefined && message.taskId !== "") {
    const task = parseTaskId(message.taskId);
    if (task === undefined || (message.contextId !== undefined && message.contextId !== "" && message.contextId !== task.runId)) {
      throw new A2aError(A2A_ERRORS.taskNotFound, `Task ${message.taskId} was not found.`);
    }
    const action: IncomingAction = { kind: "answer", task, taskId: message.taskId };
    if (approved !== undefined) action.approved = approved;
    if (text !== "") action.text = text;
    return action;
  }
  if (text === "") throw unsupported("The message has no text.");
  if (message.contextId !== undefined && message.contextId !== "") return { kind: "continue", runId: message.contextId, text };
  return { kind: "new", text };
}
