// A task as A2A shows it, from its record: its state, the message that says why it stopped (the
// waiting call's question, the run's error) and the final answer as its artifact.
import type { Waiting } from "../types";
import type { A2aArtifact, A2aMessage, A2aPart, A2aTask, A2aTaskStatus } from "./a2a-types";
import type { TaskRecord } from "./task-fold";
import { taskIdOf } from "./task-ids";
import { guardrailHoldText } from "../rules/policy-stops";
import { stopParts } from "./policy-stop";

/** The one artifact of a task: its final answer (text, and typed output as a data part). */
export const ANSWER_ARTIFACT = "answer";

export function questionOf(waiting: Waiting): string {
  const input = waiting.input as { question?: unknown } | null;
  if (waiting.kind === "ask" && typeof input?.question === "string") return input.question;
  if (waiting.kind === "approval") {
    const approve = `Approve the call of ${waiting.name}? Answer with a data part {"approved": true} or {"approved": false}.`;
    return waiting.guardrail === undefined ? approve : `${guardrailHoldText(waiting.guardrail)} ${approve}`;
  }
  return `The run waits for the result of ${waiting.name}: answer with it.`;
}

/** The data part of an input-required task: what the run waits on, to answer it by. */
export function waitingData(waiting: Waiting): Record<string, unknown> {
  const data: Record<string, unknown> = { kind: waiting.kind, callId: waiting.callId, name: waiting.name, input: waiting.input };
  const choices = (waiting.input as { choices?: unknown } | null)?.choices;
  if (Array.isArray(choices)) data.choices = choices;
  if (waiting.guardrail !== undefined) data.guardrail = waiting.guardrail;
  return data;
}

function agentMessage(taskId: string, contextId: string, messageId: string, parts: A2aPart[]): A2aMessage {
  return { messageId, role: "ROLE_AGENT", parts, taskId, contextId };
}

export function statusOf(runId: string, task: TaskRecord): A2aTaskStatus {
  const id = taskIdOf(runId, task.n);
  const status: A2aTaskStatus = { state: task.state, timestamp: task.updatedAt };
  if (task.state === "TASK_STATE_INPUT_REQUIRED" && task.waiting !== undefined) {
    status.message = agentMessage(id, runId, `${id}/waiting/${task.waiting.callId}`, [{ text: questionOf(task.waiting) }, { data: waitingData(task.waiting) }]);
  }
  if (task.state === "TASK_STATE_FAILED" && task.error !== undefined) {
    status.message = agentMessage(id, runId, `${id}/error/${task.lastSeq}`, [{ text: task.error.message }, { data: { code: task.error.code } }]);
  }
  if (task.state === "TASK_STATE_REJECTED" && task.stop !== undefined) {
    status.message = agentMessage(id, runId, `${id}/stop/${task.lastSeq}`, stopParts(task.stop));
  }
  return status;
}

/** The final answer's artifact, once the task has one. */
export function answerArtifact(task: TaskRecord): A2aArtifact | undefined {
  const parts: A2aPart[] = [];
  if (task.finalText !== undefined && task.finalText !== "") parts.push({ text: task.finalText });
  if (task.final !== undefined) parts.push({ data: task.final.value });
  return parts.length === 0 ? undefined : { artifactId: ANSWER_ARTIFACT, name: ANSWER_ARTIFACT, parts };
}

/** The task as A2A shows it; with `history`, its messages (task-history.ts). */
export function taskView(runId: string, task: TaskRecord, history?: A2aMessage[]): A2aTask {
  const view: A2aTask = { id: taskIdOf(runId, task.n), contextId: runId, status: statusOf(runId, task) };
  const artifact = answerArtifact(task);
  if (artifact !== undefined) view.artifacts = [artifact];
  if (history !== undefined) view.history = history;
  return view;
}
