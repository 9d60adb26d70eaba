// Types of the public API (docs/api.md) shared by the HTTP edge, the run object and clients.
// The zod schemas in ./schemas.ts validate exactly these shapes.
import type { ChatMessage, Content, StoppedBy as LoopStoppedBy, Usage, ToolCall } from "../loop/types";

export type ToolRef =
  | string
  | {
      type: "http";
      name: string;
      description: string;
      inputSchema: Record<string, unknown>;
      url: string;
      approval?: boolean;
      once?: boolean;
      /** The tool answers later: 202 to the request, then a POST of the result to the call's callback (docs/http-tools.md). */
      async?: boolean;
      /** For an async tool: how long the run waits for the result (default 3,600; at most 604,800, 7 days). */
      timeoutSeconds?: number;
    }
  | { type: "client"; name: string; description: string; inputSchema: Record<string, unknown> };

/** Who is acting: the deployment token (everything) or a run token (its own run). */
export type CallerKind = "deployment" | "run";

export type RunStatus = "running" | "waiting" | "finished" | "failed" | "cancelled";
export type StoppedBy = LoopStoppedBy | "error";
export type WaitingKind = "ask" | "approval" | "client-tool";

/** An async HTTP tool call the run is waiting on: the tool server took the job and has not answered yet. */
export type PendingCall = {
  callId: string;
  name: string;
  /** The model call (of the whole run) whose turn made this call. */
  step: number;
  startedAt: string;
  /** When the run stops waiting and gives the model an error result instead. */
  deadline: string;
};

export type ApiError = {
  code: string;
  message: string;
  issues?: { path: string; message: string }[];
  /** On a failed run: whether POST /retry may succeed (the failure was transient). */
  retryable?: boolean;
};

export type RunView = {
  id: string;
  status: RunStatus;
  stoppedBy?: StoppedBy;
  model: string;
  provider: string;
  steps: number;
  /** Model calls the run may make in all (maxSteps, raised by each continue). */
  maxSteps: number;
  spentUsd: number;
  budgetUsd: number;
  finalText?: string;
  final?: unknown;
  waiting?: { kind: WaitingKind; callId: string; name: string; input: unknown };
  /** Async HTTP tool calls the run is waiting on (status running); absent when there are none. */
  pending?: PendingCall[];
  error?: ApiError;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  metadata?: Record<string, unknown>;
};

/** POST /v1/runs body after validation (images already stored: no `data` left). */
export type CreateRunBody = {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolRef[];
  finishTools?: string[];
  model?: string;
  provider?: "anthropic" | "scripted";
  maxSteps?: number;
  budget?: { usd: number; finishAt?: number; spentUsd?: number };
  finishNote?: string;
  keepImages?: number;
  maxTokens?: number;
  reasoning?: unknown;
  script?: unknown;
  metadata?: Record<string, unknown>;
};

/** What the edge hands the run object to create a run. */
export type NewRun = {
  id: string;
  body: CreateRunBody;
  model: string;
  provider: "anthropic" | "scripted";
  /** SHA-256 (hex) of the run token; the token itself is never stored. */
  tokenHash: string;
  /** SHA-256 (hex) of the canonical request body, to tell an idempotent retry from a different request. */
  bodyHash: string;
  /**
   * The origin (scheme://host[:port]) the creating request reached: async HTTP tools are told to
   * send their results back there, unless PUBLIC_URL names another.
   */
  origin?: string;
};

export type AnswerBody = { callId: string; content?: Content; approved?: boolean; isError?: boolean };

/** POST /v1/runs/:id/messages after validation (images stored). */
export type ContinueBody = { content: Content; maxSteps?: number };

/** What a tool server POSTs to an async call's callback URL (checked at the edge). */
export type CallResultBody = { content: Content; isError?: boolean; costUsd?: number };

/** The answer to a callback: the call, and when its (first) result was taken. */
export type CallResultAccepted = { callId: string; answeredAt: string };

/** A ticket as the run object keeps it: the hash, who asked for it, and when it expires (ms since the epoch). */
export type TicketRecord = { hash: string; kind: CallerKind; expiresAt: number };

/** The result of a run-object call: the value, or an API error with its HTTP status. */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503; error: ApiError };

export type RunEvent =
  | { type: "run-started"; run: RunView }
  | { type: "step-start"; step: number; last: boolean }
  | { type: "text"; step: number; delta: string }
  | { type: "text-reset"; step: number }
  | { type: "model"; step: number; text: string; toolCalls: ToolCall[]; usage: Usage; costUsd: number; spentUsd: number }
  | { type: "tool-call"; step: number; callId: string; name: string; input: unknown }
  /** An async HTTP tool took the job (202): the run waits for its result until `deadline`. */
  | { type: "tool-started"; step: number; callId: string; name: string; deadline: string }
  | { type: "tool-result"; step: number; callId: string; name: string; ok: boolean; summary: string; error?: string; costUsd: number }
  | { type: "waiting"; kind: WaitingKind; callId: string; name: string; input: unknown }
  | { type: "answered"; callId: string }
  | {
      type: "end";
      status: RunStatus;
      stoppedBy: StoppedBy;
      finalText?: string;
      final?: unknown;
      spentUsd: number;
      steps: number;
      error?: ApiError;
    };

/** A stored event as sent to clients: seq (gap-free from 1) and time added. Live-only events have no seq. */
export type StoredEvent = RunEvent & { seq: number; at: string };
