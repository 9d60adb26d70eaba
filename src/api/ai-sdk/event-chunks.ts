// A run's events as the stream chunks of one assistant UIMessage (docs/api.md "AI SDK chat", the
// mapping table). One state per message: `chunksFor` takes the state and one event (a stored one, or
// a live `text` / `text-reset`) and returns the chunks to send, updating the state. Pure: the
// whole tool results come from `results` (the run's history), never from the events' summaries.
//
// A turn's assistant messages are split where the person spoke while the run went on (a message
// it took while it worked, a typed answer: ./message-splits.ts): the message before ends there and
// the next one, `<runId>-<turn>-<k>` after the k-th split, begins with it. A state may wait for
// the split its message begins at, sending nothing before it.
import type { Content, ToolMessage } from "../../loop/types";
import { DENIED } from "../../loop/tool-calls/plan-call";
import type { UIChunk } from "./ui-chunks";
import { closeStep, closeText, cutText, messageIdIn, openStep, resetText, textDelta, type ChunkState } from "./chunk-state";
import { answerOutput, contentText, toolOutput } from "./tool-output";
import { splitBy, type ChatEvent, type Split } from "./message-splits";
import { isShownPolicyEvent, loopAskChunk, loopVerdictOf, policyStopChunks } from "./policy-chunks";

export type { ChatEvent } from "./message-splits";

/** The types the chat shows as `data-ratchet-<type>` parts (a named message's `user-message`: at the start of the message it begins; guardrails and loop guards: policy-chunks.ts). */
const DATA_EVENTS = new Set(["user-message", "compaction", "child-started", "child-ended", "mcp-tools"]);

type ToolCallView = { id: string; name: string; input: unknown; toolset?: string };

/** The tool's name as the model sees it: a client toolset's action is `<toolset>__<action>`. */
export function uiToolName(call: { name: string; toolset?: string }): string {
  return call.toolset === undefined ? call.name : `${call.toolset}__${call.name}`;
}

/** A call's result, whole: output, error or (v6 on) a person's denial. `output`: how its content is the part's output. */
function resultChunk(state: ChunkState, callId: string, result: ToolMessage | undefined, fallback: { ok: boolean; summary: string; error?: string }, output = toolOutput): UIChunk {
  const text = result === undefined ? fallback.summary : contentText(result.content);
  if (result !== undefined && text === DENIED) {
    return state.caps.approvals ? { type: "tool-output-denied", toolCallId: callId } : { type: "tool-output-error", toolCallId: callId, errorText: DENIED };
  }
  const failed = result === undefined ? !fallback.ok : result.isError === true;
  if (failed) return { type: "tool-output-error", toolCallId: callId, errorText: fallback.error ?? text };
  return { type: "tool-output-available", toolCallId: callId, output: result === undefined ? fallback.summary : output(result.content) };
}

function dataPart(event: ChatEvent): UIChunk {
  const { seq, at: _at, type, ...data } = event;
  const id = type === "user-message" && typeof data.messageId === "string" ? data.messageId : seq === undefined ? undefined : `ratchet-${seq}`;
  return id === undefined ? { type: `data-ratchet-${type}`, data } : { type: `data-ratchet-${type}`, id, data };
}

function isPast(state: ChunkState, event: ChatEvent): boolean {
  return event.seq !== undefined && event.seq <= state.pastThrough;
}

/** The run stopped (it waits, or ended) at `event`: a stop the turn went on from is not one. */
function isStop(state: ChunkState, event: ChatEvent): boolean {
  if (isPast(state, event)) return false;
  return event.type === "waiting" || event.type === "end";
}

/** An ask's or a client tool's answer: its output (a client that answered by text has none yet); an approval has no result of its own. */
function answeredChunks(state: ChunkState, event: ChatEvent, results: (callId: string) => ToolMessage | undefined): UIChunk[] {
  const ids = Array.isArray(event.results) ? (event.results as { callId: string }[]).map((result) => result.callId) : [String(event.callId)];
  return ids.flatMap((id) => {
    const result = results(id);
    if (result === undefined) {
      // A loop guard's ask is no call's result: the event carries its answer.
      return event.content === undefined ? [] : [{ type: "tool-output-available" as const, toolCallId: id, output: answerOutput(event.content as Content) }];
    }
    return [resultChunk(state, id, result, { ok: true, summary: "" }, answerOutput)];
  });
}

/** A split before the stream's message began: the turn's next message is the split's; this stream's when it is the one awaited. */
function beginAtSplit(state: ChunkState, event: ChatEvent, split: Split): UIChunk[] {
  state.k++;
  if (state.begin.at === "message" && state.begin.id !== split.messageId) return [];
  state.begin = { at: "now" };
  const out: UIChunk[] = [{ type: "start", messageId: messageIdIn(state) }];
  if (split.kind === "message") out.push(dataPart(event));
  return out;
}

/** The person spoke: the message ends here (an interrupt's cut text void first); the next one is the split's. */
function endAtSplit(state: ChunkState, event: ChatEvent, results: (callId: string) => ToolMessage | undefined): UIChunk[] {
  const out = event.type === "answered" ? answeredChunks(state, event, results) : [];
  if (event.type === "user-message" && state.modelDue !== undefined && state.modelDue === event.step) resetText(state, state.modelDue, out);
  closeStep(state, out);
  out.push({ type: "finish", finishReason: "stop" });
  state.done = true;
  return out;
}

export function chunksFor(state: ChunkState, event: ChatEvent, results: (callId: string) => ToolMessage | undefined): UIChunk[] {
  if (state.done) return [];
  const split = splitBy(event);
  if (state.begin.at === "now") return split === undefined ? mapped(state, event, results) : endAtSplit(state, event, results);
  if (split !== undefined) return beginAtSplit(state, event, split);
  if (state.begin.at !== "content") {
    // The run stopped before it took the person's message: this stream has no message.
    if (isStop(state, event)) state.done = true;
    return [];
  }
  const out = mapped(state, event, results);
  if (out.length === 0) return out;
  state.begin = { at: "now" };
  return [{ type: "start", messageId: messageIdIn(state) }, ...out];
}

/**
 * A loop guard's ask is a step of its own, after the model's (whose calls it holds, open): so the
 * chat's last step is complete once the ask's part has its answer, and `sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithToolCalls` sends it as it sends an ask's.
 */
function loopAsk(state: ChunkState, event: ChatEvent, out: UIChunk[]): void {
  const chunk = loopAskChunk(event);
  if (chunk === undefined) return;
  closeStep(state, out);
  openStep(state, out);
  out.push(chunk);
}

/** The chunks of `event` in a message that has begun. */
function mapped(state: ChunkState, event: ChatEvent, results: (callId: string) => ToolMessage | undefined): UIChunk[] {
  const out: UIChunk[] = [];
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
      resetText(state, step, out);
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
    case "answered":
      out.push(...answeredChunks(state, event, results));
      break;
    case "step":
      closeStep(state, out);
      out.push({ type: "message-metadata", messageMetadata: { steps: step, spentUsd: event.spentUsd } });
      break;
    case "waiting":
      closeText(state, out);
      loopAsk(state, event, out);
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
      const metadata = { steps: event.steps, spentUsd: event.spentUsd, ...(event.status === "finished" ? { stoppedBy: event.stoppedBy } : {}) };
      const policyStop = policyStopChunks(event, metadata, state.loop);
      if (policyStop !== undefined) out.push(...policyStop);
      else if (event.status === "finished") out.push({ type: "finish", finishReason: "stop", messageMetadata: metadata });
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
      // A message that interrupted the model call: its cut text is void before the message's part
      // goes in (on v7, the reset-step would drop the part too).
      if (event.type === "user-message" && state.modelDue !== undefined && state.modelDue === step) resetText(state, step, out);
      state.loop = loopVerdictOf(event) ?? state.loop;
      if (DATA_EVENTS.has(event.type) || isShownPolicyEvent(event)) out.push(dataPart(event));
  }
  return out;
}
