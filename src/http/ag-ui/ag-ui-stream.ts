// The AG-UI stream of one thread's run: the run's events read through the one watch (so that a
// revoked user token ends it) and mapped by src/api/ag-ui, each AG-UI event with the run's
// sequence as its SSE id. The run's events before where a stream starts (after a seq; from a
// Last-Event-ID) are folded without sending (the mapping's state at that place), then the rest is
// sent: a resume's state is the stream's it continues, nothing lost, nothing twice.
// The stream ends at the run's next stop; a failure once it started is its last event, RUN_ERROR.
import type { Context } from "hono";
import type { AgUiEvent } from "../../api/ag-ui/ag-ui-events";
import { liveTextId, openingId, storedEventId, type AgUiCursor } from "../../api/ag-ui/event-ids";
import { liveReset, liveText, opening, storedSlots } from "../../api/ag-ui/event-list";
import { heldChars, streamState, type StreamState } from "../../api/ag-ui/stream-state";
import { STEP_TEXT_HEADER } from "../../api/rpc/run-rpc";
import { contentText, toolResultsOf } from "../../api/ai-sdk/tool-output";
import type { ToolMessage } from "../../loop/types";
import { withKeepAlive } from "../../lib/sse/sse-keep-alive";
import { unwrap } from "../outcome";
import { runFrames, type RunFrame } from "../a2a/run-frames";
import type { AppEnv } from "../app-env";
import { ApiException } from "../errors";
import type { RunStub } from "../run-stub";
import { openRunEvents, watchEnded, type RunWatch } from "../routes/runs/run-watch";

export const AG_UI_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "x-accel-buffering": "no" } as const;

export type AgUiStreamPlan = {
  runId: string;
  run: RunStub;
  threadId: string;
  agRunId: string;
  /** A fresh stream: RUN_STARTED, then the run's events after this seq. */
  after?: number;
  /** A resumed one (Last-Event-ID): the events after this place, with no RUN_STARTED. */
  cursor?: AgUiCursor;
  /** A fresh stream whose page holds part of a reply (a reload): that message's text goes on from there. */
  held?: StreamState["held"];
};

const encoder = new TextEncoder();

function frame(event: AgUiEvent, id?: string): Uint8Array {
  return encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(event)}\n\n`);
}

/** A reader of the run's events for the caller of `c`, with the text of a model call in flight. */
function watchOf(c: Context<AppEnv>, run: RunStub, runId: string): RunWatch {
  const url = (after: number) => `https://run.internal/v1/runs/${encodeURIComponent(runId)}/events?after=${after}`;
  return {
    open: (after) => openRunEvents(c, runId, new Request(url(after), { headers: { Accept: "text/event-stream", [STEP_TEXT_HEADER]: "1" } }), run),
    ended: () => watchEnded(c),
  };
}

function failure(error: unknown): AgUiEvent {
  if (error instanceof ApiException) return { type: "RUN_ERROR", message: error.message, code: error.code };
  return { type: "RUN_ERROR", message: "The run's events could not be read: reconnect with the Last-Event-ID you hold.", code: "internal" };
}

/** The frames a stored event or a live one sends, and the state after it. */
type Sent = { state: StreamState; frames: Uint8Array[] };

/** A tool's whole result, as text (the `tool-result` event carries a 200-character summary only). */
type ResultText = (callId: string) => string | undefined;

function storedFrames(state: StreamState, frame0: Extract<RunFrame, { stored: unknown }>, skip: number, resultText: ResultText): Sent {
  const event = frame0.stored;
  const { state: next, slots } = storedSlots(state, event);
  const frames: Uint8Array[] = [];
  slots.forEach((slot, index) => {
    if (slot === undefined || index < skip) return;
    const whole = slot.type === "TOOL_CALL_RESULT" ? resultText(slot.toolCallId) : undefined;
    const sent: AgUiEvent = slot.type === "TOOL_CALL_RESULT" && whole !== undefined ? { ...slot, content: whole } : slot;
    frames.push(frame(sent, storedEventId(event.seq, index, slots.length)));
  });
  return { state: next, frames };
}

function liveFrames(state: StreamState, live: Extract<RunFrame, { live: unknown }>["live"]): Sent {
  if (live.type === "text-reset") {
    const reset = liveReset(state);
    return { state: reset.state, frames: reset.events.map((event) => frame(event)) };
  }
  if (live.step === undefined) return { state, frames: [] };
  const before = state.open?.chars ?? state.resumeChars ?? heldChars(state, live.step);
  const text = liveText(state, live.step, live.delta);
  const chars = text.state.open?.chars ?? before;
  const frames = text.events.map((event) => frame(event, liveTextId(state.lastSeq, event.type === "TEXT_MESSAGE_START" ? before : chars)));
  return { state: text.state, frames };
}

export function agUiStream(c: Context<AppEnv>, plan: AgUiStreamPlan): Response {
  const { cursor } = plan;
  const signal = c.req.raw.signal;
  const abort = new AbortController();
  // A fresh stream starts after this seq; a resume, after its cursor. Either folds the run's events
  // before that place without sending them, so that a resume's state is the stream's it continues.
  const start = cursor === undefined ? plan.after ?? 0 : cursor.after;
  let state: StreamState = { ...streamState({ runId: plan.runId, threadId: plan.threadId, agRunId: plan.agRunId }), ...(plan.held === undefined ? {} : { held: plan.held }) };
  let silentThrough = start > 0 ? start : -1;
  let frames: AsyncGenerator<RunFrame> | undefined;
  let pending: Uint8Array[] = [];
  let over = false;
  // The run's tool results (its history), read again when a result names a call not yet there.
  let results = new Map<string, ToolMessage>();
  const resultText: ResultText = (callId) => {
    const result = results.get(callId);
    return result === undefined ? undefined : contentText(result.content);
  };

  /**
   * Past the start. A fresh stream sends RUN_STARTED and reopens what the run's earlier events left
   * open, the batch's last event with the opening's id. A stream resumed at its stop has nothing
   * more (one resumed at its opening after a stop has); one resumed inside a model call's text
   * holds its characters.
   */
  function leaveSilence(): void {
    silentThrough = -1;
    if (cursor === undefined) {
      const events = opening({ ...state, lastSeq: start });
      pending.push(...events.map((event, index) => frame(event, index === events.length - 1 ? openingId(start) : undefined)));
    } else if (state.done && cursor.opened !== true) over = true;
    else if (cursor.chars !== undefined) state = { ...state, resumeChars: cursor.chars };
  }
  if (start === 0) leaveSilence();

  async function next(): Promise<void> {
    frames ??= runFrames(watchOf(c, plan.run, plan.runId), 0, AbortSignal.any([signal, abort.signal]));
    const read = await frames.next();
    if (read.done === true) {
      over = true;
      return;
    }
    const item = read.value;
    if ("stored" in item) {
      const seq = item.stored.seq;
      if (silentThrough >= 0) {
        state = storedSlots(state, item.stored).state;
        if (seq >= silentThrough) leaveSilence();
        return;
      }
      const skip = cursor !== undefined && seq === cursor.after + 1 ? cursor.skip : 0;
      if (item.stored.type === "tool-result" && !results.has(item.stored.callId)) results = toolResultsOf(unwrap(await plan.run.messages()).messages);
      const sent = storedFrames(state, item, skip, resultText);
      state = sent.state;
      pending.push(...sent.frames);
      if (state.done) over = true;
      return;
    }
    if (silentThrough >= 0) leaveSilence();
    const sent = liveFrames(state, item.live);
    state = sent.state;
    pending.push(...sent.frames);
  }

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (pending.length === 0 && !over) await next();
        } catch (error) {
          pending.push(frame(failure(error)));
          over = true;
        }
        for (const bytes of pending) controller.enqueue(bytes);
        pending = [];
        if (over) {
          controller.close();
          abort.abort();
          await frames?.return(undefined);
        }
      },
      async cancel() {
        abort.abort();
        await frames?.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return withKeepAlive(new Response(body, { status: 200, headers: { ...AG_UI_HEADERS, "x-ratchet-run-id": plan.runId } }), c.var.settings.limits.sseKeepAliveSeconds);
}
