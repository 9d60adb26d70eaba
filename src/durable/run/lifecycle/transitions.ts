// The person's actions on a run: answer, continue, retry, cancel while waiting. Each checks the
// run's state, then writes the next segment (or the end) in one transaction.
import { canonicalJson } from "../../../lib/text/canonical-json";
import { closeOpenCalls } from "../../../loop/history";
import { answerLoopGuard, isLoopGuardAsk } from "./loop-guard-answer";
import type { ChatMessage, IncomingMessage } from "../../../loop/types";
import { markTaken, messageIdUsed, newMessageId, storeContinueMessage, storeMessage, waitingMessages } from "../../person/message-store";
import type { AnswerBody, ContinueBody, MessageAnswer, Outcome, RunView } from "../../../api/types";
import { limitsOf } from "../../../config/settings";
import { contentBytes, effectiveMode, interruptsOf, queueRefusal } from "../../person/message-caps";
import { storeAnswer, storedAnswer } from "../../person/answer-store";
import { isoNow } from "../../storage/clock";
import type { EngineContext } from "../../engine/engine-context";
import { batchAnswer, batchRefusal } from "../../person/batch-answer";
import { emitEvent } from "../../events/log/emit-event";
import { recordStop } from "./run-stop";
import { fail, notFound, ok } from "../outcome";
import { reportChange } from "../../outbox/report-change";
import { markSegmentRetry, markSegmentStart } from "../../telemetry/trace-store";
import { writeAnswerSpans } from "../../telemetry/stop-spans";
import { insertSegment, readSegment, saveSegmentResult } from "../store/segment-store";
import { readRun, updateRun, type RunRow } from "../store/run-store";
import { toRunView } from "../store/run-view";

/**
 * The next segment, from `messages`; the step limit stays unless a continue raises it. Inside the
 * caller's transaction, with the change reported (`answered`: the call an answer answered).
 */
function startSegment(engine: EngineContext, run: RunRow, messages: ChatMessage[], approvals: Record<string, boolean>, stepLimit: number, answered?: string): void {
  const { sql } = engine.ctx.storage;
  const n = run.segment + 1;
  if (answered !== undefined) writeAnswerSpans(engine, run, answered);
  markSegmentStart(sql, n, Date.now());
  insertSegment(sql, { n, messages, approvals, stepsBefore: run.steps, spentBefore: run.spentUsd, stepLimit, perQuestion: true });
  updateRun(
    sql,
    // A cancelled run that takes a new message runs again: its cancel is history.
    { status: "running", segment: n, stepLimit, stoppedBy: null, waiting: null, error: null, guardrail: null, finalText: null, final: null, deleteAt: null, cancelRequested: false },
    isoNow(),
  );
  if (answered !== undefined) reportChange(engine, "run-answered", { callId: answered });
  else reportChange(engine, "run-resumed");
}

function view(engine: EngineContext): RunView {
  return toRunView(readRun(engine.ctx.storage.sql)!);
}

/**
 * What `run` answers `body` without taking it, or undefined when it takes it: a refusal (a call it
 * does not wait on, an answer that does not fit the call), or the same answer sent again, which
 * changes nothing. Asked before an answer's images are stored, and again when it is stored.
 */
export function answerInstead(sql: SqlStorage, run: RunRow | undefined, body: AnswerBody): Outcome<RunView> | undefined {
  if (run === undefined) return notFound();
  const previous = storedAnswer(sql, body.callId);
  if (previous !== undefined) {
    if (previous === canonicalJson(body)) return ok(toRunView(run));
    return fail(409, `Call ${body.callId} was already answered.`);
  }
  const waiting = run.waiting;
  if (run.status !== "waiting" || waiting === undefined || waiting.callId !== body.callId) {
    return fail(409, `No call ${body.callId} is waiting for an answer.`);
  }
  const batchProblem = batchRefusal(waiting, body);
  if (batchProblem !== undefined) return batchProblem;
  if (waiting.kind === "approval" && typeof body.approved !== "boolean") {
    return fail(400, "An approval needs `approved`: true or false.", [{ path: "approved", message: `Required: call ${body.callId} waits for an approval (true or false).` }]);
  }
  if ((waiting.kind === "ask" || waiting.kind === "client-tool") && body.content === undefined) {
    const kind = waiting.kind === "ask" ? "an ask" : "a client tool";
    return fail(400, `An answer to ${kind} needs \`content\`.`, [{ path: "content", message: `Required: call ${body.callId} waits for the answer to ${kind} (text or content parts).` }]);
  }
  return undefined;
}

export function answer(engine: EngineContext, body: AnswerBody): Outcome<RunView> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  const instead = answerInstead(sql, run, body);
  if (instead !== undefined || run === undefined) return instead ?? notFound();
  const waiting = run.waiting!;
  const given = canonicalJson(body);
  const segment = readSegment(sql, run.segment);
  const base = segment.result ?? segment.messages;
  engine.ctx.storage.transactionSync(() => {
    storeAnswer(sql, body.callId, given);
    if (isLoopGuardAsk(waiting)) {
      answerLoopGuard(engine, run, segment, base, body, startSegment);
      return;
    }
    if (waiting.kind === "client-toolset") {
      // Actions after a failed one stay open: the loop answers them as not run when it goes on.
      const { replies, answered } = batchAnswer(waiting, body.results!);
      startSegment(engine, run, [...base, ...replies], segment.approvals, run.stepLimit, body.callId);
      emitEvent(engine, { type: "answered", callId: body.callId, results: answered });
      return;
    }
    if (waiting.kind === "approval") {
      startSegment(engine, run, base, { ...segment.approvals, [body.callId]: body.approved === true }, run.stepLimit, body.callId);
    } else {
      const reply: ChatMessage = { role: "tool", toolCallId: body.callId, content: body.content! };
      if (body.isError === true) reply.isError = true;
      startSegment(engine, run, [...base, reply], segment.approvals, run.stepLimit, body.callId);
    }
    emitEvent(engine, { type: "answered", callId: body.callId, ...(body.messageId === undefined ? {} : { messageId: body.messageId }) });
  });
  return ok(view(engine));
}

/**
 * A new user message for a finished or a cancelled run (a chat's Stop, then a new message). maxSteps counts the whole run, so a continue allows
 * `maxSteps` more model calls from here (the run's own maxSteps unless the body names one); the
 * budget is never reset, so spend stays bounded by it.
 */
export function continueRun(engine: EngineContext, body: ContinueBody): Outcome<RunView> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  const refusal = continueRefusal(run) ?? (run.status === "running" ? fail(409, "The run is running: its message is queued, not a continue.") : undefined);
  if (refusal !== undefined) return refusal;
  const segment = readSegment(sql, run.segment);
  const stepLimit = run.steps + (body.maxSteps ?? run.body.maxSteps ?? run.stepLimit);
  engine.ctx.storage.transactionSync(() => {
    // Messages sent while the run worked that it did not take before it ended come first, in order.
    const waiting = waitingMessages(sql);
    const n = run.segment + 1;
    markTaken(sql, waiting.map((message) => message.id), `s${n}/start`);
    for (const message of waiting) emitEvent(engine, { type: "user-message", step: run.steps + 1, messageId: message.id, mode: message.mode, content: message.content });
    const messages: ChatMessage[] = [...(segment.result ?? segment.messages), ...waiting.map(userMessage), { role: "user", content: body.content }];
    storeContinueMessage(sql, body.messageId ?? newMessageId(), n, isoNow());
    startSegment(engine, run, messages, segment.approvals, stepLimit);
  });
  return ok(view(engine));
}

/** A message id the caller gave that the run was sent before: 409 (ids name one message each). */
export function messageIdRefusal(sql: SqlStorage, id: string | undefined): Outcome<never> | undefined {
  return id !== undefined && messageIdUsed(sql, id) ? fail(409, `This run was sent a message with id ${id} already: a message's id names one message.`) : undefined;
}

const userMessage = (message: IncomingMessage): ChatMessage => ({ role: "user", content: message.content });

/** Why the run cannot take a new message now, or undefined when it can (a running run queues it: queueMessage). */
export function continueRefusal(run: RunRow): Outcome<RunView> | undefined {
  if (run.status === "finished" || run.status === "cancelled" || run.status === "running") return undefined;
  if (run.status === "waiting") {
    const callId = run.waiting?.callId ?? "";
    return fail(409, `The run is waiting for an answer to call ${callId}: answer it (POST /v1/runs/${run.id}/answer with callId "${callId}"); a message is taken once it runs again.`);
  }
  return fail(409, `Only a running, finished or cancelled run can take a new message; this one is failed. Retry it first (POST /v1/runs/${run.id}/retry).`);
}

/**
 * A message for a running run: stored to be taken before its next model call (mode "interrupt":
 * the caller then aborts the model call in flight), or refused (429) past the run's queue caps.
 * Told to no one yet: the `user-message` event comes when the run takes it.
 */
export function queueMessage(engine: EngineContext, message: IncomingMessage): Outcome<MessageAnswer> {
  const { sql } = engine.ctx.storage;
  const limits = limitsOf(engine.env);
  const refused = messageIdRefusal(sql, message.id) ?? queueRefusal(sql, limits, contentBytes(message.content));
  if (refused !== undefined) return refused;
  // The caps (person/message-caps.ts): past MAX_INTERRUPTS_PER_STEP of the call in flight, an interrupt queues.
  const step = message.mode === "interrupt" ? engine.modelCalls?.interruptible() : undefined;
  const mode = step === undefined ? message.mode : effectiveMode(message.mode, interruptsOf(sql, `s${readRun(sql)!.segment}/`, step), limits);
  storeMessage(sql, { ...message, mode }, isoNow());
  return ok({ ...view(engine), message: { id: message.id, mode } });
}

/** Why the run cannot be retried now, or undefined when it can. */
export function retryRefusal(run: RunRow): Outcome<RunView> | undefined {
  return run.status === "failed" ? undefined : fail(409, `Only a failed run can be retried; this one is ${run.status}.`);
}

export function retry(engine: EngineContext): Outcome<RunView> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  const refusal = retryRefusal(run);
  if (refusal !== undefined) return refusal;
  engine.ctx.storage.transactionSync(() => {
    updateRun(sql, { status: "running", stoppedBy: null, error: null, deleteAt: null }, isoNow());
    markSegmentRetry(sql, run.segment, Date.now());
    reportChange(engine, "run-resumed");
  });
  return ok(view(engine));
}

/** Cancel of a run that waits for the person: its open calls are answered "Not run: cancel.". */
export function cancelWaiting(engine: EngineContext, run: RunRow): void {
  const { sql } = engine.ctx.storage;
  const segment = readSegment(sql, run.segment);
  const closed = closeOpenCalls(segment.result ?? segment.messages, "cancel");
  engine.ctx.storage.transactionSync(() => {
    saveSegmentResult(sql, segment.n, closed);
    recordStop(engine, { status: "cancelled", stoppedBy: "cancel", waiting: null, cancelRequested: true }, "end");
  });
}

export { view };
