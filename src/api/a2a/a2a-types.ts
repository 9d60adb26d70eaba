// The A2A protocol 1.0 objects as its JSON-RPC binding carries them (the ProtoJSON shapes that
// @a2a-js/sdk 1.3.0 reads: `TASK_STATE_*` and `ROLE_*` enum names, parts with one of text / data /
// url, SendMessage's answer as `{task}` or `{message}`, a stream's events as `{task}`,
// `{statusUpdate}` or `{artifactUpdate}`). Only what Ratchet sends or reads is typed.

export const A2A_PROTOCOL_VERSION = "1.0";

/** The states a Ratchet task takes (the protocol's SUBMITTED and AUTH_REQUIRED are never used; REJECTED: a guardrail or a loop guard stopped the run). */
export type TaskState = "TASK_STATE_WORKING" | "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_COMPLETED" | "TASK_STATE_FAILED" | "TASK_STATE_CANCELED" | "TASK_STATE_REJECTED";

export const TASK_STATES = ["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"] as const satisfies readonly TaskState[];

/** Every state the protocol names: a client may filter by any (those Ratchet never uses match nothing). */
export const PROTOCOL_TASK_STATES = [...TASK_STATES, "TASK_STATE_SUBMITTED", "TASK_STATE_AUTH_REQUIRED"] as const;

/** A task in one of these states takes no more work: it is over. */
export function isTerminal(state: TaskState): boolean {
  return state === "TASK_STATE_COMPLETED" || state === "TASK_STATE_FAILED" || state === "TASK_STATE_CANCELED" || state === "TASK_STATE_REJECTED";
}

/** A stream of a task ends here: the task is over, or it waits for the caller's next message. */
export function endsStream(state: TaskState): boolean {
  return isTerminal(state) || state === "TASK_STATE_INPUT_REQUIRED";
}

export type A2aPart = { text: string; metadata?: Record<string, unknown> } | { data: unknown; metadata?: Record<string, unknown> } | { url: string; mediaType?: string; filename?: string };

export type A2aMessage = {
  messageId: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: A2aPart[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
};

export type A2aTaskStatus = { state: TaskState; message?: A2aMessage; timestamp?: string };

export type A2aArtifact = { artifactId: string; name?: string; parts: A2aPart[] };

export type A2aTask = {
  id: string;
  contextId: string;
  status: A2aTaskStatus;
  artifacts?: A2aArtifact[];
  /** The task's messages, oldest first (task-history.ts). */
  history?: A2aMessage[];
  metadata?: Record<string, unknown>;
};

export type A2aStatusUpdate = { taskId: string; contextId: string; status: A2aTaskStatus; metadata?: Record<string, unknown> };

export type A2aArtifactUpdate = { taskId: string; contextId: string; artifact: A2aArtifact; append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> };

/** One event of SendStreamingMessage's or SubscribeToTask's stream (a StreamResponse). */
export type A2aStreamEvent = { task: A2aTask } | { statusUpdate: A2aStatusUpdate } | { artifactUpdate: A2aArtifactUpdate };

/** The error codes of the A2A JSON-RPC binding that Ratchet answers with. */
export const A2A_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
} as const;

export type A2aErrorCode = (typeof A2A_ERRORS)[keyof typeof A2A_ERRORS];
