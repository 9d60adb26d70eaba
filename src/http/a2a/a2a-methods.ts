// The six JSON-RPC methods of POST /a2a/{name}, each a translation: a message becomes an answer, a
// continue or a new run (through the same run-object calls and intake as the HTTP routes), a task
// is read from its run's event log, a cancel is the run's cancel. Results are plain values; the
// streaming methods hand back the events to write (a2a-app.ts frames them as SSE).
import type { Context } from "hono";
import { A2A_ERRORS, endsStream, isTerminal, type A2aStreamEvent, type A2aTask } from "../../api/a2a/a2a-types";
import { actionOf, type IncomingAction } from "../../api/a2a/incoming-message";
import { A2aError, LIST_PAGE_DEFAULT, listParamsSchema, parseParams, sendParamsSchema, taskNotFound, taskParamsSchema } from "../../api/a2a/json-rpc";
import { resumeCursor } from "../../api/a2a/stream-events";
import type { TaskRecord } from "../../api/a2a/task-fold";
import { parseTaskId, taskIdOf } from "../../api/a2a/task-ids";
import { taskView } from "../../api/a2a/task-view";
import type { AnswerInput } from "../../api/schemas/person/answer-schemas";
import type { RunView } from "../../api/types";
import type { AppEnv } from "../app-env";
import type { Caller } from "../auth/auth";
import { admitCreator } from "../auth/auth";
import { ApiException } from "../errors";
import { isRunId } from "../ids/ids";
import { answerRun } from "../intake/answer-run";
import { unwrap } from "../outcome";
import { sendMessageTo } from "../routes/runs/run-actions";
import { runStub, type RunStub } from "../run-stub";
import { isRunOf, listAgentRuns, startAgentRun, type A2aAgent } from "./agent-port";
import { runWatch, type RunWatch } from "../routes/runs/run-watch";
import { followTask, pendingTask, readSnapshot, type FollowFrame, type FollowFrom } from "./task-source";

export type A2aCall = { c: Context<AppEnv>; agent: A2aAgent; caller: Caller };

/** What a streaming method answers: the first event, then the task's events as they come. */
export type TaskStream = { first: A2aStreamEvent; frames: AsyncGenerator<FollowFrame, TaskRecord> };

type OpenRun = { run: RunStub; view: RunView; source: RunWatch };

/** Run `runId` of this agent, as the caller may reach it; anything else is the task not found (a miss tells nothing). */
async function openRun(call: A2aCall, runId: string, taskId: string): Promise<OpenRun> {
  const { c } = call;
  if (!(await isRunId(runId, c.var.settings.runIdKeys))) throw taskNotFound(taskId);
  const run = runStub(c.env, runId);
  if (call.caller.kind === "user" && !(await run.authorizeSubject(call.caller.subject))) throw taskNotFound(taskId);
  const outcome = await run.view();
  if (!outcome.ok || !isRunOf(outcome.value, call.agent)) throw taskNotFound(taskId);
  return { run, view: outcome.value, source: runWatch(c, run, runId) };
}

async function taskOf(call: A2aCall, taskId: string, at?: string): Promise<{ open: OpenRun; task: TaskRecord; newest: boolean; atSeq?: TaskRecord; lastSeq: number }> {
  const ref = parseTaskId(taskId);
  if (ref === undefined) throw taskNotFound(taskId);
  const open = await openRun(call, ref.runId, taskId);
  const cursor = at === undefined ? undefined : resumeCursor(at);
  const snapshot = await readSnapshot(open.source, open.view.lastSeq, cursor === undefined ? undefined : { n: ref.n, seq: cursor.after });
  const task = snapshot.tasks[ref.n - 1];
  if (task === undefined) throw taskNotFound(taskId);
  const found: { open: OpenRun; task: TaskRecord; newest: boolean; atSeq?: TaskRecord; lastSeq: number } = { open, task, newest: ref.n === snapshot.tasks.length, lastSeq: snapshot.lastSeq };
  if (snapshot.atSeq !== undefined) found.atSeq = snapshot.atSeq;
  return found;
}

/** The answer for the call `task` waits on, from the message's parts. */
function answerBody(task: TaskRecord, action: Extract<IncomingAction, { kind: "answer" }>): AnswerInput {
  const waiting = task.waiting!;
  if (waiting.kind === "approval") {
    if (action.approved === undefined) throw new A2aError(A2A_ERRORS.invalidParams, `Task ${action.taskId} waits for an approval: send a data part {"approved": true} or {"approved": false}.`);
    return { callId: waiting.callId, approved: action.approved };
  }
  if (waiting.kind === "client-toolset") throw new A2aError(A2A_ERRORS.unsupportedOperation, `Task ${action.taskId} waits for a client toolset's batch: answer it over the HTTP API (POST /v1/runs/{id}/answers).`);
  if (action.text === undefined) throw new A2aError(A2A_ERRORS.invalidParams, `Task ${action.taskId} waits for an answer: send it as text parts.`);
  return { callId: waiting.callId, content: action.text };
}

/** Where a message leaves its task: the task to follow and from where. */
async function deliver(call: A2aCall, action: IncomingAction, messageId: string): Promise<{ runId: string; source: RunWatch; from: FollowFrom }> {
  const { c } = call;
  const now = new Date().toISOString();
  if (action.kind === "new") {
    await admitCreator(c, call.caller);
    const { runId } = await startAgentRun(c, call.agent, action.text, messageId);
    const open = await openRun(call, runId, taskIdOf(runId, 1));
    return { runId, source: open.source, from: { task: pendingTask(1, 0, now), cursor: { after: 0, skip: 0 }, caughtUpAt: 0 } };
  }
  if (action.kind === "answer") {
    const found = await taskOf(call, action.taskId);
    if (!found.newest || found.task.state !== "TASK_STATE_INPUT_REQUIRED") {
      throw new A2aError(A2A_ERRORS.unsupportedOperation, `Task ${action.taskId} is not waiting for input: it is ${found.task.state}.`);
    }
    unwrap(await answerRun(found.open.run, answerBody(found.task, action)));
    const task: TaskRecord = { ...found.task, state: "TASK_STATE_WORKING", updatedAt: now };
    delete task.waiting;
    return { runId: action.task.runId, source: found.open.source, from: { task, cursor: { after: found.task.lastSeq, skip: 0 }, caughtUpAt: 0 } };
  }
  const open = await openRun(call, action.runId, action.runId);
  const snapshot = await readSnapshot(open.source, open.view.lastSeq);
  const newest = snapshot.tasks[snapshot.tasks.length - 1]!;
  await sendMessageTo(c, open.run, { content: action.text });
  // A finished run's continue is its next task; a running run's message joins the task at work.
  const task = open.view.status === "finished" ? pendingTask(newest.n + 1, snapshot.lastSeq, now) : newest;
  return { runId: action.runId, source: open.source, from: { task, cursor: { after: snapshot.lastSeq, skip: 0 }, caughtUpAt: 0 } };
}

export async function sendMessage(call: A2aCall, params: unknown): Promise<{ task: A2aTask }> {
  const { message, configuration } = parseParams(sendParamsSchema, params);
  const { runId, source, from } = await deliver(call, actionOf(message), message.messageId);
  if (configuration?.returnImmediately === true) return { task: taskView(runId, from.task) };
  // Blocking: the task as it stands once it is over or waits for the caller, or once A2A_SEND_SECONDS
  // are up (the follow ends there, with the task as far as it got; the run goes on).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), call.c.var.settings.limits.a2aSendSeconds * 1000);
  try {
    const frames = followTask(source, runId, from, AbortSignal.any([call.c.req.raw.signal, deadline.signal]));
    let next = await frames.next();
    while (next.done !== true) next = await frames.next();
    return { task: taskView(runId, next.value) };
  } finally {
    clearTimeout(timer);
  }
}

export async function sendStreamingMessage(call: A2aCall, params: unknown): Promise<TaskStream> {
  const { message } = parseParams(sendParamsSchema, params);
  const { runId, source, from } = await deliver(call, actionOf(message), message.messageId);
  return { first: { task: taskView(runId, from.task) }, frames: followTask(source, runId, from, call.c.req.raw.signal) };
}

export async function getTask(call: A2aCall, params: unknown): Promise<A2aTask> {
  const { id } = parseParams(taskParamsSchema, params);
  const { open, task } = await taskOf(call, id);
  return taskView(open.view.id, task);
}

export async function cancelTask(call: A2aCall, params: unknown): Promise<A2aTask> {
  const { id } = parseParams(taskParamsSchema, params);
  const found = await taskOf(call, id);
  if (!found.newest || isTerminal(found.task.state)) {
    throw new A2aError(A2A_ERRORS.taskNotCancelable, `Task ${id} cannot be cancelled: it is ${found.task.state}.`);
  }
  unwrap(await found.open.run.cancel());
  return getTask(call, { id });
}

/** A stream with nothing after its first event. */
async function* nothing(task: TaskRecord): AsyncGenerator<FollowFrame, TaskRecord> {
  return task;
}

/**
 * SubscribeToTask: the task as it is now, then every event the subscriber has not seen — after
 * its Last-Event-ID when it sends one (resuming a stream it lost), else after the snapshot — until
 * the task is over or waits for the caller. A task already over has nothing to follow unless the
 * subscriber resumes from before its end.
 */
export async function subscribeToTask(call: A2aCall, params: unknown, lastEventId: string | undefined): Promise<TaskStream> {
  const { id } = parseParams(taskParamsSchema, params);
  const cursor = lastEventId === undefined ? undefined : resumeCursor(lastEventId);
  if (lastEventId !== undefined && cursor === undefined) throw new A2aError(A2A_ERRORS.invalidParams, "Last-Event-ID: not an id of this stream (a seq, or <seq>.<n>).");
  const found = await taskOf(call, id, lastEventId);
  if (cursor !== undefined && cursor.after > found.lastSeq) {
    const message = `Past the run's newest event (seq ${found.lastSeq}): resume from an id this task's stream sent.`;
    throw new A2aError(A2A_ERRORS.invalidParams, `Last-Event-ID: ${message}`, { issues: [{ path: "Last-Event-ID", message }] });
  }
  const runId = found.open.view.id;
  const first: A2aStreamEvent = { task: taskView(runId, found.task) };
  if (cursor === undefined && isTerminal(found.task.state)) {
    throw new A2aError(A2A_ERRORS.unsupportedOperation, `Task ${id} is ${found.task.state}: there is nothing to subscribe to (GetTask reads it).`);
  }
  // Resuming at or after the task's newest event, with the task over or waiting: the snapshot is all there is.
  if (endsStream(found.task.state) && (cursor === undefined || cursor.after >= found.task.lastSeq)) return { first, frames: nothing(found.task) };
  const from: FollowFrom =
    cursor === undefined
      ? { task: found.task, cursor: { after: found.lastSeq, skip: 0 }, caughtUpAt: found.task.lastSeq }
      : { task: found.atSeq ?? pendingTask(found.task.n, Math.max(cursor.after, found.task.firstSeq - 1), found.task.updatedAt), cursor, caughtUpAt: found.task.lastSeq };
  return { first, frames: followTask(found.open.source, runId, from, call.c.req.raw.signal) };
}

/** ListTasks: the agent's runs the caller reaches, newest first, each with its tasks (or one run's, with `contextId`). */
export async function listTasks(call: A2aCall, params: unknown): Promise<Record<string, unknown>> {
  const query = parseParams(listParamsSchema, params);
  const pageSize = query.pageSize ?? LIST_PAGE_DEFAULT;
  let runIds: string[];
  let next: string | undefined;
  if (query.contextId !== undefined && query.contextId !== "") {
    runIds = [query.contextId];
  } else {
    const page = await listAgentRuns(call.c, call.agent, pageSize, query.pageToken === "" ? undefined : query.pageToken);
    runIds = page.runIds;
    next = page.next;
  }
  const tasks: A2aTask[] = [];
  for (const runId of runIds) {
    let open: OpenRun;
    try {
      open = await openRun(call, runId, runId);
    } catch (error) {
      // A named context the caller does not reach lists nothing; a listed run deleted since is left out.
      if (error instanceof A2aError) continue;
      throw error;
    }
    const snapshot = await readSnapshot(open.source, open.view.lastSeq);
    for (const task of [...snapshot.tasks].reverse()) {
      if (query.status === undefined || query.status === "TASK_STATE_UNSPECIFIED" || task.state === query.status) tasks.push(taskView(runId, task));
    }
  }
  return { tasks, nextPageToken: next ?? "", pageSize, totalSize: tasks.length };
}

/** A refusal of the run object or the intake, as the JSON-RPC error a client of A2A understands; auth and rate limits stay HTTP answers. */
export function rpcErrorOf(error: ApiException): A2aError | undefined {
  const status = error.status as number;
  if (status === 401 || status === 403 || status === 429) return undefined;
  const data = error.issues === undefined ? { code: error.code } : { code: error.code, issues: error.issues };
  if (status === 400) return new A2aError(A2A_ERRORS.invalidParams, error.message, data);
  if (status === 404) return new A2aError(A2A_ERRORS.taskNotFound, error.message, data);
  if (status === 409) return new A2aError(A2A_ERRORS.unsupportedOperation, error.message, data);
  return new A2aError(A2A_ERRORS.internalError, error.message, { ...data, status });
}
