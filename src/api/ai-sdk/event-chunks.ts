// A run's events as one assistant UIMessage's stream chunks (docs/api.md "AI SDK chat", the
// mapping table). One state per message: `chunksFor` takes the state and one event (a stored one, or
// a live `text` / `text-reset`) and returns the chunks to send, updating the state. Pure: the
// whole tool results come from `results` (the run's history), never from the events' summaries.
import type { ToolMessage } from "../../loop/types";
import { DENIED } from "../../loop/tool-calls/plan-call";
import type { ChatCaps } from "./versions";
import type { UIChunk } from "./ui-chunks";
import { contentText, toolOutput } from "./tool-output";

/** A stored event (with seq) or a live one (text deltas, resets): the fields the mapping reads. */
export type ChatEvent = { type: string; seq?: number; [field: string]: unknown };

export type ChunkState = {
  readonly messageId: string;
  readonly caps: ChatCaps;
  /**
   * Stops at or before this seq (a `waiting` answered since, a failed `end` retried since) are
   * history: they close their step but do not end this stream (the turn went on after them).
   */
  readonly pastThrough: number;
  stepOpen: boolean;
  /** The step whose `step-start` came and whose `model` has not: a cancel then cut its model call. */
  modelDue?: number;
  text?: { id: string; step: number; streamed: string };
  resets: number;
  /** Set by a terminal event (finish, error, abort): nothing more belongs to this stream. */
  done: boolean;
};

export function chunkState(messageId: string, caps: ChatCaps, pastThrough = 0): ChunkState {
  return { messageId, caps, pastThrough, stepOpen: false, resets: 0, done: false };
}

/** The types the chat shows as `data-ratchet-<type>` parts. */
const DATA_EVENTS = new Set(["user-message", "compaction", "child-started", "child-ended", "mcp-tools"]);

type ToolCallView = { id: string; name: string; input: unknown; toolset?: string };

/** The tool's name as the model sees it: a client toolset's action is `<toolset>__<action>`. */
export function uiToolName(call: { name: string; toolset?: string }): string {
  return call.toolset === undefined ? call.name : `${call.toolset}__${call.name}`;
}

function closeText(state: ChunkState, out: UIChunk[]): void {
  if (state.text === undefined) return;
  out.push({ type: "text-end", id: state.text.id });
  state.text = undefined;
}

function openStep(state: ChunkState, out: UIChunk[]): void {
  if (state.stepOpen) return;
  out.push({ type: "start-step" });
  state.stepOpen = true;
}

function closeStep(state: ChunkState, out: UIChunk[]): void {
  closeText(state, out);
  if (!state.stepOpen) return;
  out.push({ type: "finish-step" });
  state.stepOpen = false;
}

function textDelta(state: ChunkState, step: number, delta: string, out: UIChunk[]): void {
  if (delta === "") return;
  openStep(state, out);
  if (state.text !== undefined && state.text.step !== step) closeText(state, out);
  if (state.text === undefined) {
    const id = `${state.messageId}-t${step}${state.resets === 0 ? "" : `-r${state.resets}`}`;
    state.text = { id, step, streamed: "" };
    out.push({ type: "text-start", id });
  }
  state.text.streamed += delta;
  out.push({ type: "text-delta", id: state.text.id, delta });
}

/** A call's result, whole: output, error or (v6 on) a person's denial. */
function resultChunk(state: ChunkState, callId: string, result: ToolMessage | undefined, fallback: { ok: boolean; summary: string; error?: string }): UIChunk {
  const text = result === undefined ? fallback.summary : contentText(result.content);
  if (result !== undefined && text === DENIED) {
    return state.caps.approvals ? { type: "tool-output-denied", toolCallId: callId } : { type: "tool-output-error", toolCallId: callId, errorText: DENIED };
  }
  const failed = result === undefined ? !fallback.ok : result.isError === true;
  if (failed) return { type: "tool-output-error", toolCallId: callId, errorText: fallback.error ?? text };
  return { type: "tool-output-available", toolCallId: callId, output: result === undefined ? fallback.summary : toolOutput(result.content) };
}

/** The cut step's text the deltas did not bring (all of it on a replay). */
function cutText(state: ChunkState, step: number, text: string, out: UIChunk[]): void {
  const streamed = state.text?.streamed ?? "";
  if (text.startsWith(streamed)) textDelta(state, step, text.slice(streamed.length), out);
}

function dataPart(event: ChatEvent): UIChunk {
  const { seq, at: _at, type, ...data } = event;
  const id = type === "user-message" && typeof data.messageId === "string" ? data.messageId : seq === undefined ? undefined : `ratchet-${seq}`;
  return id === undefined ? { type: `data-ratchet-${type}`, data } : { type: `data-ratchet-${type}`, id, data };
}

function isPast(state: ChunkState, event: ChatEvent): boolean {
  return event.seq !== undefined && event.seq <= state.pastThrough;
}

export function chunksFor(state: ChunkState, event: ChatEvent, results: (callId: string) => ToolMessage | undefined): UIChunk[] {
  const out: UIChunk[] = [];
  if (state.done) return out;
  const step = typeof event.step === "number" ? event.step : 0;
  switch (event.type) {
    case "step-start":
      closeStep(state, out);
      openStep(state, out);
      state.modelDue = step;
      break;
    case "text":
      textDelta(state, step, String(event.delta), out);
      break;
    case "text-reset":
      if (state.text !== undefined) {
        if (state.caps.resetStep) {
          // reset-step drops the step's parts after its step-start: the step stays open.
          out.push({ type: "reset-step" });
          state.text = undefined;
        } else {
          closeText(state, out);
          out.push({ type: "data-ratchet-text-reset", data: { step } });
        }
        state.resets++;
      }
      break;
    case "model": {
      openStep(state, out);
      state.modelDue = undefined;
      const text = String(event.text);
      const streamed = state.text?.step === step ? state.text.streamed : "";
      // What the deltas did not bring (none on a replay: deltas are live only) comes in one delta.
      if (text.startsWith(streamed)) textDelta(state, step, text.slice(streamed.length), out);
      closeText(state, out);
      for (const call of (event.toolCalls as ToolCallView[] | undefined) ?? []) {
        out.push({ type: "tool-input-available", toolCallId: call.id, toolName: uiToolName(call), input: call.input });
      }
      for (const call of (event.providerToolCalls as ToolCallView[] | undefined) ?? []) {
        out.push({ type: "tool-input-available", toolCallId: call.id, toolName: call.name, input: call.input, providerExecuted: true });
      }
      break;
    }
    case "tool-result": {
      const callId = String(event.callId);
      const fallback = { ok: event.ok === true, summary: String(event.summary ?? "") };
      out.push(resultChunk(state, callId, results(callId), typeof event.error === "string" ? { ...fallback, error: event.error } : fallback));
      break;
    }
    case "answered": {
      // An ask or client tool answered: its output (a text answer's client has none yet); an approval has no result of its own.
      const ids = Array.isArray(event.results) ? (event.results as { callId: string }[]).map((result) => result.callId) : [String(event.callId)];
      for (const id of ids) {
        const result = results(id);
        if (result !== undefined) out.push(resultChunk(state, id, result, { ok: true, summary: "" }));
      }
      break;
    }
    case "step":
      closeStep(state, out);
      out.push({ type: "message-metadata", messageMetadata: { steps: step, spentUsd: event.spentUsd } });
      break;
    case "waiting":
      closeText(state, out);
      if (event.kind === "approval" && state.caps.approvals) out.push({ type: "tool-approval-request", approvalId: String(event.callId), toolCallId: String(event.callId) });
      closeStep(state, out);
      if (isPast(state, event)) break;
      out.push({ type: "finish", finishReason: "tool-calls" });
      state.done = true;
      break;
    case "end": {
      if (event.status === "failed" && isPast(state, event)) {
        closeStep(state, out);
        break;
      }
      // A cancel that cut a model call: the run kept the text it had streamed as its last answer (finalText).
      if (event.status === "cancelled" && state.modelDue !== undefined) cutText(state, state.modelDue, String(event.finalText ?? ""), out);
      closeStep(state, out);
      const metadata = { steps: event.steps, spentUsd: event.spentUsd };
      if (event.status === "finished") out.push({ type: "finish", finishReason: "stop", messageMetadata: metadata });
      else if (event.status === "failed") {
        const error = event.error as { code?: string; message?: string } | undefined;
        const message = error?.message ?? "The run failed.";
        // A part too, so the message shows its failure after a reload as it did live (the error itself is the page's state).
        out.push({ type: "data-ratchet-error", ...(event.seq === undefined ? {} : { id: `ratchet-${event.seq}` }), data: { code: error?.code ?? "failed", message } });
        out.push({ type: "error", errorText: message });
      } else out.push({ type: "abort" });
      state.done = true;
      break;
    }
    default:
      if (DATA_EVENTS.has(event.type)) out.push(dataPart(event));
  }
  return out;
}
