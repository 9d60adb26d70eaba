// The state of one assistant message's chunks (./event-chunks.ts maps the events with it): which
// message of which turn it is, where its stream begins, and its open step and text part, with the
// chunks that open and close them. Pure.
import type { ChatCaps } from "./versions";
import type { UIChunk } from "./ui-chunks";
import type { LoopVerdictSeen } from "../rules/policy-stops";

/** The assistant message of turn `turn` after `k` splits (1 from the run's start, one more per continue). */
export function messageIdOf(runId: string, turn: number, k = 0): string {
  return k === 0 ? `${runId}-${turn}` : `${runId}-${turn}-${k}`;
}

/**
 * Where a stream's message begins: `now` (its `start` is the stream's first chunk: a replay of the
 * message the client holds), with its first chunk (`content`: a new turn's message; a split before
 * any moves it on), at the split of the person's message with this id, or at the next split.
 */
export type Begin = { at: "now" } | { at: "content" } | { at: "message"; id: string } | { at: "next-split" };

export type ChunkState = {
  readonly runId: string;
  readonly turn: number;
  readonly caps: ChatCaps;
  /**
   * Stops at or before this seq (a `waiting` answered since, a failed `end` retried since) are
   * history: they close their step but do not end this stream (the turn went on after them).
   */
  readonly pastThrough: number;
  /** The turn's splits so far: the message is the k-th split's (0: the turn's first). */
  k: number;
  begin: Begin;
  stepOpen: boolean;
  /** The step whose `step-start` came and whose `model` has not: a cancel or an interrupt then cut its model call. */
  modelDue?: number;
  text?: { id: string; step: number; streamed: string };
  resets: number;
  /** The newest loop guard verdict the message saw: the words of a loop stop. */
  loop?: LoopVerdictSeen;
  /** Set by a terminal event (finish, error, abort), or a split after the message: nothing more belongs to this stream. */
  done: boolean;
};

export function chunkState(init: { runId: string; turn: number; caps: ChatCaps; pastThrough?: number; k?: number; begin?: Begin }): ChunkState {
  const { runId, turn, caps, pastThrough = 0, k = 0, begin = { at: "now" } } = init;
  return { runId, turn, caps, pastThrough, k, begin, stepOpen: false, resets: 0, done: false };
}

export function messageIdIn(state: ChunkState): string {
  return messageIdOf(state.runId, state.turn, state.k);
}

/** The chunks a stream opens with: its message's `start`, when the message begins at once. */
export function openingChunks(state: ChunkState): UIChunk[] {
  return state.begin.at === "now" ? [{ type: "start", messageId: messageIdIn(state) }] : [];
}

export function closeText(state: ChunkState, out: UIChunk[]): void {
  if (state.text === undefined) return;
  out.push({ type: "text-end", id: state.text.id });
  state.text = undefined;
}

export function openStep(state: ChunkState, out: UIChunk[]): void {
  if (state.stepOpen) return;
  out.push({ type: "start-step" });
  state.stepOpen = true;
}

export function closeStep(state: ChunkState, out: UIChunk[]): void {
  closeText(state, out);
  if (!state.stepOpen) return;
  out.push({ type: "finish-step" });
  state.stepOpen = false;
}

export function textDelta(state: ChunkState, step: number, delta: string, out: UIChunk[]): void {
  if (delta === "") return;
  openStep(state, out);
  if (state.text !== undefined && state.text.step !== step) closeText(state, out);
  if (state.text === undefined) {
    const id = `${messageIdIn(state)}-t${step}${state.resets === 0 ? "" : `-r${state.resets}`}`;
    state.text = { id, step, streamed: "" };
    out.push({ type: "text-start", id });
  }
  state.text.streamed += delta;
  out.push({ type: "text-delta", id: state.text.id, delta });
}

/** The cut step's text the deltas did not bring (all of it on a replay). */
export function cutText(state: ChunkState, step: number, text: string, out: UIChunk[]): void {
  const streamed = state.text?.streamed ?? "";
  if (text.startsWith(streamed)) textDelta(state, step, text.slice(streamed.length), out);
}

/** The text the step has streamed so far is void (a model call made again, or cut by a message). */
export function resetText(state: ChunkState, step: number, out: UIChunk[]): void {
  if (state.text === undefined) return;
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
