// A run's events as AG-UI 1.0 events, pure: each stored event sends a fixed list of slots (some
// empty for the state it finds), so that a slot's place is its SSE id whatever was sent before
// (event-ids.ts); a live text delta sends its message's start and its content. The stream ends at
// the run's next stop: RUN_FINISHED (success, interrupt, cancelled) or RUN_ERROR (a failed run).
import type { StoredEvent, Waiting } from "../types";
import { AG_UI_PROTOCOL_VERSION, CUSTOM_EVENTS, type AgUiEvent, type AgUiOutcome } from "./ag-ui-events";
import { guardrailCustom, guardStop, loopGuardCustom, passedCustoms } from "./guard-events";
import { waitingOutcome } from "./interrupts";
import { heldChars, textMessageId, toolMessageId, type StreamState } from "./stream-state";

type Slot = AgUiEvent | undefined;
export type Step = { state: StreamState; slots: Slot[] };

const stepName = (step: number) => `step-${step}`;

/** The message of model call `step` as the client holds it: open (here, or in the stream a resume continues), or not yet. */
function openFor(state: StreamState, step: number): StreamState {
  if (state.open?.step === step || state.resumeChars === undefined) return state;
  const { resumeChars, ...rest } = state;
  return { ...rest, open: { step, messageId: textMessageId(state, step), chars: resumeChars, seen: 0 } };
}

/** A live delta of model call `step`'s text (the first a stream gets may be all of it so far). */
export function liveText(state: StreamState, step: number, delta: string): { state: StreamState; events: AgUiEvent[] } {
  const events: AgUiEvent[] = [];
  let next = openFor(state, step);
  let open = next.open?.step === step ? next.open : undefined;
  if (open === undefined) {
    open = { step, messageId: textMessageId(next, step), chars: heldChars(next, step), seen: 0 };
    events.push({ type: "TEXT_MESSAGE_START", messageId: open.messageId, role: "assistant" });
  }
  const seen = open.seen + delta.length;
  const fresh = delta.slice(Math.max(0, open.chars - open.seen));
  if (fresh !== "") events.push({ type: "TEXT_MESSAGE_CONTENT", messageId: open.messageId, delta: fresh });
  next = { ...next, open: { ...open, seen, chars: Math.max(open.chars, seen) } };
  return { state: next, events };
}

/** The text streamed so far is void (the model call is made again): its message ends here. */
export function liveReset(state: StreamState): { state: StreamState; events: AgUiEvent[] } {
  if (state.open === undefined) return { state, events: [] };
  const { open, ...rest } = state;
  return {
    state: { ...rest, resets: state.resets + 1 },
    events: [
      { type: "TEXT_MESSAGE_END", messageId: open.messageId },
      { type: "CUSTOM", name: CUSTOM_EVENTS.textReset, value: { messageId: open.messageId, step: open.step } },
    ],
  };
}

function modelSlots(state: StreamState, event: Extract<StoredEvent, { type: "model" }>): Step {
  const slots: Slot[] = [];
  let next = openFor(state, event.step);
  const open = next.open?.step === event.step ? next.open : undefined;
  let parent: string | undefined;
  if (event.text !== "" || open !== undefined) {
    const messageId = open?.messageId ?? textMessageId(next, event.step);
    parent = messageId;
    const rest = event.text.slice(open?.chars ?? heldChars(next, event.step));
    slots.push(open === undefined ? { type: "TEXT_MESSAGE_START", messageId, role: "assistant" } : undefined);
    slots.push(rest === "" ? undefined : { type: "TEXT_MESSAGE_CONTENT", messageId, delta: rest });
    slots.push({ type: "TEXT_MESSAGE_END", messageId });
    const { open: _closed, ...rest2 } = next;
    next = rest2;
  }
  const callNames = { ...next.callNames };
  for (const call of event.toolCalls) {
    callNames[call.id] = call.name;
    slots.push({ type: "TOOL_CALL_START", toolCallId: call.id, toolCallName: call.name, ...(parent === undefined ? {} : { parentMessageId: parent }) });
    slots.push({ type: "TOOL_CALL_ARGS", toolCallId: call.id, delta: JSON.stringify(call.input ?? {}) });
    slots.push({ type: "TOOL_CALL_END", toolCallId: call.id });
  }
  slots.push({ type: "CUSTOM", name: CUSTOM_EVENTS.cost, value: { step: event.step, costUsd: event.costUsd, spentUsd: event.spentUsd, usage: event.usage, stopReason: event.stopReason } });
  return { state: { ...next, callNames }, slots };
}

/** The slots that close what is open before the run's stop. */
function closing(state: StreamState, childOutcome: "suspended" | "error"): Slot[] {
  const slots: Slot[] = [];
  if (state.open !== undefined) slots.push({ type: "TEXT_MESSAGE_END", messageId: state.open.messageId });
  if (state.openStep !== undefined) slots.push({ type: "STEP_FINISHED", stepName: stepName(state.openStep) });
  for (const child of state.children) {
    slots.push(childOutcome === "suspended" ? { type: "SUBAGENT_FINISHED", subagentRunId: child, outcome: { type: "suspended" } } : { type: "SUBAGENT_ERROR", subagentRunId: child, message: "The run stopped before its child run ended.", code: "parent-stopped" });
  }
  return slots;
}

/** The state after a stop: the AG-UI run is over, and the next one starts afresh. */
function stopped(state: StreamState, seq: number): StreamState {
  return { runId: state.runId, threadId: state.threadId, agRunId: state.agRunId, lastSeq: seq, resets: state.resets, children: [], childCalls: {}, callNames: {}, done: true };
}

function finished(state: StreamState, outcome: AgUiOutcome, result?: unknown, metadata?: Record<string, unknown>): AgUiEvent {
  return { type: "RUN_FINISHED", threadId: state.threadId, runId: state.agRunId, outcome, ...(result === undefined ? {} : { result }), ...(metadata === undefined ? {} : { metadata }) };
}

function endSlots(state: StreamState, event: Extract<StoredEvent, { type: "end" }>): Slot[] {
  if (event.status === "failed") {
    const error = event.error ?? { code: "internal", message: "The run failed." };
    return [...closing(state, "error"), { type: "RUN_ERROR", message: error.message, code: error.code }];
  }
  if (event.status === "cancelled") return [...closing(state, "error"), finished(state, { type: "cancelled" })];
  const stop = guardStop(event);
  if (stop !== undefined) return [...closing(state, "error"), finished(state, { type: "cancelled" }, undefined, stop)];
  return [...closing(state, "error"), finished(state, { type: "success" }, event.final ?? event.finalText)];
}

/** What stored `event` sends to a stream in `state` (after a stop, the events of the run's next AG-UI run: a reader folding a run's history goes on through them). */
export function storedSlots(state: StreamState, event: StoredEvent): Step {
  return eventSlots({ ...state, lastSeq: event.seq, done: false }, event);
}

function eventSlots(state: StreamState, event: StoredEvent): Step {
  switch (event.type) {
    case "step-start": {
      // A model call made again (after a crash) starts no second step; one left open by a call that never finished is closed first.
      const previous = state.openStep !== undefined && state.openStep !== event.step ? state.openStep : undefined;
      return {
        state: { ...state, openStep: event.step },
        slots: [previous === undefined ? undefined : { type: "STEP_FINISHED", stepName: stepName(previous) }, state.openStep === event.step ? undefined : { type: "STEP_STARTED", stepName: stepName(event.step) }],
      };
    }
    case "model":
      return modelSlots(state, event);
    case "tool-result":
      return { state, slots: [{ type: "TOOL_CALL_RESULT", messageId: toolMessageId(state.runId, event.callId), toolCallId: event.callId, content: event.ok ? event.summary : (event.error ?? event.summary), role: "tool" }] };
    case "child-started": {
      const name = state.callNames[event.callId] ?? "agent";
      return { state: { ...state, children: [...state.children, event.childId], childCalls: { ...state.childCalls, [event.childId]: event.callId } }, slots: [{ type: "SUBAGENT_STARTED", subagentRunId: event.childId, name, parentToolCallId: event.callId }] };
    }
    case "child-ended": {
      if (!state.children.includes(event.childId)) return { state, slots: [undefined] };
      const children = state.children.filter((child) => child !== event.childId);
      const slot: AgUiEvent = event.status === "finished" ? { type: "SUBAGENT_FINISHED", subagentRunId: event.childId, outcome: { type: "success" } } : { type: "SUBAGENT_ERROR", subagentRunId: event.childId, message: `The child run ended ${event.status}.`, code: event.status };
      return { state: { ...state, children }, slots: [slot] };
    }
    case "step": {
      const { openStep, ...rest } = state;
      const closes = openStep === event.step;
      return {
        state: closes ? rest : state,
        slots: [
          { type: "STATE_SNAPSHOT", snapshot: { ratchet: { runId: state.runId, steps: event.step, spentUsd: event.spentUsd } } },
          { type: "CUSTOM", name: CUSTOM_EVENTS.step, value: { step: event.step, spentUsd: event.spentUsd } },
          closes ? { type: "STEP_FINISHED", stepName: stepName(event.step) } : undefined,
        ],
      };
    }
    case "user-message":
      return { state, slots: [{ type: "CUSTOM", name: CUSTOM_EVENTS.userMessage, value: { messageId: event.messageId, mode: event.mode, step: event.step } }] };
    case "compaction":
      return { state, slots: [{ type: "CUSTOM", name: CUSTOM_EVENTS.compaction, value: { step: event.step, mode: event.mode, reason: event.reason, tokensBefore: event.tokensBefore, tokensAfter: event.tokensAfter } }] };
    case "guardrail":
      return { state, slots: [guardrailCustom(event)] };
    case "tool-call":
      // The data checks a call that runs passed ride on its tool-call event: each a verdict as a guardrail event's.
      return { state, slots: passedCustoms(event) };
    case "loop-guard":
      return { state, slots: [loopGuardCustom(event)] };
    case "waiting": {
      const { type: _type, seq: _seq, at: _at, ...waiting } = event;
      return { state: stopped(state, event.seq), slots: [...closing(state, "suspended"), finished(state, waitingOutcome(waiting as Waiting))] };
    }
    case "end":
      return { state: stopped(state, event.seq), slots: endSlots(state, event) };
    default:
      return { state, slots: [] };
  }
}

/** The event that opens an AG-UI run's stream. */
export function runStarted(state: StreamState): AgUiEvent {
  return { type: "RUN_STARTED", threadId: state.threadId, runId: state.agRunId, protocolVersion: AG_UI_PROTOCOL_VERSION, metadata: { "ratchet.runId": state.runId } };
}

/**
 * The events that open a stream started inside a segment (a message queued on a running run; a
 * stopped run followed from its stop): RUN_STARTED, then what the run's events before it left open,
 * so that what closes them later (STEP_FINISHED, SUBAGENT_FINISHED) closes what this stream opened.
 * `state` is the fold of the run's events up to the start, as a resume folds them.
 */
export function opening(state: StreamState): AgUiEvent[] {
  const events: AgUiEvent[] = [runStarted(state)];
  if (state.done) return events;
  if (state.openStep !== undefined) events.push({ type: "STEP_STARTED", stepName: stepName(state.openStep) });
  for (const child of state.children) {
    const callId = state.childCalls[child];
    const name = (callId === undefined ? undefined : state.callNames[callId]) ?? "agent";
    events.push({ type: "SUBAGENT_STARTED", subagentRunId: child, name, ...(callId === undefined ? {} : { parentToolCallId: callId }) });
  }
  return events;
}
