// What a reader of a run's AG-UI stream holds between two events: which step and text message are
// open, the child runs it was told of, the names of the calls (a child's subagent name). Pure
// data; event-list.ts folds the run's events over it.

export type OpenText = {
  step: number;
  messageId: string;
  /** Characters of the step's text the client holds. */
  chars: number;
  /** Characters of the step's text this stream was given by the run (live deltas, the text so far). */
  seen: number;
};

export type StreamState = {
  /** The Ratchet run (the AG-UI thread's run). */
  runId: string;
  /** The AG-UI thread and run ids the client sent (RUN_STARTED and RUN_FINISHED echo them). */
  threadId: string;
  agRunId: string;
  /** The newest stored event folded. */
  lastSeq: number;
  openStep?: number;
  open?: OpenText;
  /** A stream resumed inside a model call's text: the client holds this many characters of its message. */
  resumeChars?: number;
  /** A page's messages hold this text message's first characters (a reload that kept a reply in part): its text is sent from there. */
  held?: { messageId: string; chars: number };
  /** Text resets seen by this stream (a model call made again): the next message's id is new. */
  resets: number;
  /** Child runs started and not yet ended, by id. */
  children: string[];
  /** The agent tool call that started each child run, by the child's id. */
  childCalls: Record<string, string>;
  /** Tool names by call id, for the model calls of the current AG-UI run. */
  callNames: Record<string, string>;
  /** The AG-UI run ended (RUN_FINISHED or RUN_ERROR was sent). */
  done: boolean;
};

export function streamState(ids: { runId: string; threadId: string; agRunId: string }): StreamState {
  return { ...ids, lastSeq: 0, resets: 0, children: [], childCalls: {}, callNames: {}, done: false };
}

/** The id of the text message of model call `step` (`-r<n>` after the stream saw a text reset). */
export function textMessageId(state: StreamState, step: number): string {
  return state.resets === 0 ? `${state.runId}-m${step}` : `${state.runId}-m${step}-r${state.resets}`;
}

/** The id of the tool message holding call `callId`'s result. */
export function toolMessageId(runId: string, callId: string): string {
  return `${runId}-t-${callId}`;
}

/** Characters of model call `step`'s text the page already holds (`held`, a reload): 0 unless its message is the one held. */
export function heldChars(state: StreamState, step: number): number {
  return state.held !== undefined && state.held.messageId === textMessageId(state, step) ? state.held.chars : 0;
}
