// Types of the public API (docs/api.md) shared by the HTTP edge, the run object and clients.
// The zod schemas in ./schemas/ validate exactly these shapes (./schema-checks.ts).
import type { SpanContext } from "../lib/traceparent.ts";
import type { ChatMessage, CompactionMode, Content, MessageMode, StopReason, StoppedBy as LoopStoppedBy, Usage, ToolCall } from "../loop/message-types.ts";
import type { ClientToolsetRef, ProviderToolRef, BatchAction, BatchResult, McpServerRef } from "./tool-ref-types.ts";
import type { ProviderName } from "./provider-name.ts";
import type { LoopPolicy, LoopGuards, LoopTrip, GuardrailStage, Guardrails, GuardrailTrip } from "./guard-types.ts";

export type { StopReason };
export type { ToolsetAction, NativeClientTool, ClientToolsetRef, ProviderToolRef, BatchAction, BatchResult, McpServerRef } from "./tool-ref-types.ts";
export type { ProviderName } from "./provider-name.ts";
export type { LoopDetector, LoopPolicy, LoopGuards, LoopTrip, GuardrailRef, GuardrailStage, Guardrails, GuardrailTrip } from "./guard-types.ts";

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
  | { type: "client"; name: string; description: string; inputSchema: Record<string, unknown> }
  | ClientToolsetRef
  | ProviderToolRef
  | AgentToolRef;

/** The stored agent a run was made from (docs/agents.md), as its view carries it. */
export type AgentOfRun = { name: string; version: number };

/** A child run's template: the fields of POST /v1/runs except `messages`, `subject` and `webhook` (docs/children.md). */
export type RunTemplate = Omit<CreateRunBody, "messages" | "subject" | "webhook">;

/**
 * A tool that runs another agent as a child run (docs/children.md). Without `inputSchema` the model
 * calls it with `{task: string}`; the task (or the JSON input) is the child's first user message.
 */
export type AgentToolRef = {
  type: "agent";
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  run: RunTemplate;
  /** The stored agent and version the template was resolved from (docs/agents.md#agent-tools): a record, never looked up again. */
  agent?: AgentOfRun;
};

/**
 * An agent tool that names a stored agent (docs/agents.md), as a request may give it: resolved at
 * the edge, before the one intake, into an AgentToolRef carrying that version's template (the
 * version pinned then). `name` defaults to the agent's name, `description` to the agent's.
 */
export type AgentToolByNameRef = { type: "agent"; agent: string | { name: string; version?: number }; name?: string; description?: string };

/** A tool as a request gives it: any stored kind, or an agent tool naming a stored agent. */
export type ToolRefInput = ToolRef | AgentToolByNameRef;

/** A child run as its parent's view lists it: the call that started it, its status and its spend so far. */
export type ChildRunView = { id: string; callId: string; status: RunStatus; spentUsd: number };

/** Who is acting: the deployment token (everything), a run token (its own run) or a user token (its subject's runs). */
export type CallerKind = "deployment" | "run" | "user";

export type RunStatus = "running" | "waiting" | "finished" | "failed" | "cancelled";
export type StoppedBy = LoopStoppedBy | "error";
export type WaitingKind = "ask" | "approval" | "client-tool" | "client-toolset";

/** What a run waits for. For a toolset batch: callId, name and input are its first action's call, the toolset and that action's input; `batch` has every action. */
export type Waiting = { kind: WaitingKind; callId: string; name: string; input: unknown; batch?: BatchAction[]; guardrail?: { name: string; reason: string } };

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
  /** Why the newest model call stopped (a refusal, a cut-off answer, a real end, …). */
  stopReason?: StopReason;
  waiting?: Waiting;
  /** Async HTTP tool calls the run is waiting on (status running); absent when there are none. */
  pending?: PendingCall[];
  error?: ApiError;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  metadata?: Record<string, unknown>;
  /** The run's tags, as given when it was made. */
  tags?: string[];
  /** The subject (an app's user id) whose inbox lists the run. */
  subject?: string;
  /** The run's newest webhook deliveries, newest first (only when the run has any). */
  webhooks?: WebhookDelivery[];
  /** The schedule whose fire made the run (docs/schedules.md), and the fire time it stands for. */
  scheduleId?: string;
  firedAt?: string;
  /** The stored agent (and version) the run was made from (docs/agents.md). */
  agent?: AgentOfRun;
  /** The run whose agent tool call started this one (a child run, docs/children.md). */
  parentId?: string;
  /** The child runs this run started, in the order they started (only when it started any). */
  children?: ChildRunView[];
  /** A fork's source and the model step its prefix ends with (POST /v1/runs/:id/fork). */
  forkedFrom?: ForkedFrom;
  /** A fork's prefix's cost, spent by its source: not charged to the fork's budget. */
  inheritedUsd?: number;
  /** A case run of an experiment: the experiment, the case, and how its tool calls are answered (docs/evals.md). */
  experiment?: ExperimentOfRun;
  /** Messages sent while the run works (POST /v1/runs/:id/messages) that wait to go into its history (only when some do). */
  queuedMessages?: number;
  /** stoppedBy "guardrail": the check that ended the run, its stage and why. */
  guardrail?: GuardrailTrip;
};

export type ForkedFrom = { runId: string; step: number };

/** How a case run's tool calls are answered (docs/evals.md): from the recording only, live only, or from the recording where it has the call and live elsewhere. */
export type ReplayMode = "replay" | "live" | "replay-then-live";

/** A call a recording's journal answered: the model step whose turn made it (0: the given history's), its tool, its input as the model wrote it, and the value the journal holds. */
export type RecordedCall = { step: number; name: string; input: unknown; value: RecordedValue };

/** What a journal holds for a tool call (src/loop/tool-calls/tool-step.ts's ToolStepValue). */
export type RecordedValue = { content: Content; isError: boolean; costUsd: number; value?: unknown };

/** A case run's experiment, its case and the mode its tool calls are answered in (the run's view: `experiment`). */
export type ExperimentOfRun = { id: string; case: number; mode: ReplayMode };

/** What a case run is made with besides its body: its experiment and case, the mode, and the recorded calls of the run it replays (none for an inline input). */
export type CaseReplay = { experimentId: string; case: number; mode: ReplayMode; calls: RecordedCall[] };



/** POST /v1/runs body after validation (images already stored: no `data` left). */
export type CreateRunBody = {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolRef[];
  /** MCP servers whose tools the model may call, besides `tools` (docs/mcp.md). */
  mcpServers?: McpServerRef[];
  finishTools?: string[];
  model?: string;
  provider?: ProviderName;
  maxSteps?: number;
  budget?: { usd: number; finishAt?: number; spentUsd?: number };
  finishNote?: string;
  keepImages?: number;
  imagePruning?: "exact" | "batched";
  maxToolResultTokens?: number;
  compaction?: { mode?: CompactionMode; atTokens?: number; instructions?: string };
  /** After tool work, a final answer shorter than this gets one more model call asking for the whole answer (default 100; 0: off). */
  minAnswerChars?: number;
  /** Typed final output: a finish tool (default name final_answer) whose input, checked against `schema`, is the run's `final`. */
  output?: RunOutput;
  /** Loop detectors and the count at which each warns, asks or stops (0: off), over the defaults (docs/guardrails.md). */
  loopGuards?: LoopGuards;
  maxTokens?: number;
  /** Extended thinking: true (a 4,096-token budget), { budgetTokens }, or "adaptive". */
  reasoning?: boolean | null | "adaptive" | { budgetTokens: number };
  script?: unknown;
  metadata?: Record<string, unknown>;
  /** Whose inbox lists the run: set by the deployment token, or the user token's own subject. */
  subject?: string;
  /** A webhook of this run only (its host on HTTP_TOOL_ALLOW), besides the deployment's WEBHOOK_URL. */
  webhook?: { url: string };
  /** Labels given when the run was made: listed with it, chosen by GET /v1/runs?tag= and a dataset's selection. */
  tags?: string[];
  /** Checks that can stop the run: on the input, each tool call, the output (docs/guardrails.md). */
  guardrails?: Guardrails;
};

/** A run's typed final output: `schema` is a JSON Schema of an object. */
export type RunOutput = { schema: Record<string, unknown>; name?: string };

/** POST /v1/runs/:id/compact. */
export type CompactRequestBody = { instructions?: string };

/** What the edge hands the run object to create a run. */
export type NewRun = {
  id: string;
  body: CreateRunBody;
  model: string;
  provider: ProviderName;
  /** SHA-256 (hex) of the run token; the token itself is never stored. */
  tokenHash: string;
  /** SHA-256 (hex) of the canonical request body, to tell an idempotent retry from a different request. */
  bodyHash: string;
  /** The subject whose inbox lists the run (the body's `subject`). */
  subject?: string;
  /** The subject's daily spend limit its reservations are checked against (the creating user token's, else SUBJECT_BUDGET_USD_PER_DAY). */
  dayLimitUsd?: number;
  /**
   * The origin (scheme://host[:port]) the creating request reached: async HTTP tools are told to
   * send their results back there, unless PUBLIC_URL names another.
   */
  origin?: string;
  /** The schedule whose fire makes this run, and the fire time (ISO) it stands for. */
  scheduleId?: string;
  firedAt?: string;
  /** The stored agent (and its version) the run was made from. */
  agent?: AgentOfRun;
  /** The caller's span (the `traceparent` of POST /v1/runs): the run's trace joins the caller's trace under it. */
  traceParent?: SpanContext;
  /**
   * The span that made this run, when another run's tool made it (a child run): the run's
   * invoke_agent spans link to it (docs/traces.md). Set by whatever creates child runs.
   */
  parentLink?: SpanContext;
  /** A child run: the run whose agent tool call started it, and how deep it nests (its parent's depth + 1). */
  parentId?: string;
  depth?: number;
  /** A child run: the top-level run of its tree, which counts the tree's runs (MAX_TREE_RUNS). */
  rootId?: string;
  /** A case run of an experiment (docs/evals.md): its experiment and case, and the recording its tool calls are answered from. */
  replay?: CaseReplay;
};

/** `results`: the answer to a toolset batch (callId is then the batch's, waiting.callId). */
export type AnswerBody = { callId: string; content?: Content; approved?: boolean; isError?: boolean; results?: BatchResult[]; messageId?: string };

/**
 * POST /v1/runs/:id/messages after validation (images stored). On a finished run a continue
 * (`maxSteps` more model calls); on a running one a message the run takes in (`mode`, default queue).
 */
export type ContinueBody = { content: Content; maxSteps?: number; mode?: MessageMode; messageId?: string };

/**
 * POST /v1/runs/:id/messages answers the run's view; on a running run also the message as stored:
 * its id (the `user-message` event's messageId) and the mode it was taken with ("queue" for an
 * interrupt past MAX_INTERRUPTS_PER_STEP of the model call in flight).
 */
export type MessageAnswer = RunView & { message?: { id: string; mode: MessageMode } };

/** What a tool server POSTs to an async call's callback URL (checked at the edge). */
export type CallResultBody = { content: Content; isError?: boolean; costUsd?: number };

/** The answer to a callback: the call, and when its (first) result was taken. */
export type CallResultAccepted = { callId: string; answeredAt: string };

/** A ticket as the run object keeps it: the hash, who asked for it, and when it expires (ms since the epoch). */
/**
 * The user token a watcher (a socket or stream) was opened with: its id (to close it on a
 * revocation), its expiry, and a fingerprint of the key that signed it (to close it once that key
 * is no longer accepted). Watchers opened with another kind of token carry none.
 */
export type WatcherToken = { id?: string; expiresAt: number; key: string; subject?: string };

/** `token`: for a ticket a user token asked for, that token (the stream it opens is that token's). */
export type TicketRecord = { hash: string; kind: CallerKind; expiresAt: number; token?: WatcherToken };

/** Who a redeemed ticket was for. */
export type TicketHolder = { kind: CallerKind; token?: WatcherToken };

/** The result of a run-object call: the value, or an API error with its HTTP status. */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 429 | 500 | 503; error: ApiError };

export type RunEvent =
  | { type: "run-started"; run: RunView }
  | { type: "step-start"; step: number; last: boolean }
  | { type: "text"; step: number; delta: string }
  | { type: "text-reset"; step: number }
  /** Live only: an MCP host could not show the run's question (its elicitation failed); the run still waits. */
  | { type: "elicitation-failed"; callId: string; message: string }
  | { type: "model"; step: number; text: string; toolCalls: ToolCall[]; usage: Usage; costUsd: number; spentUsd: number; stopReason: StopReason; providerToolCalls?: ToolCall[] }
  | { type: "compaction"; step: number; mode: "native" | "summary"; reason: "threshold" | "overflow" | "request"; tokensBefore: number; tokensAfter: number }
  /** `guardrailsPassed`: the data-kind tool checks the call passed, each a verdict `pass` (docs/guardrails.md). */
  | { type: "tool-call"; step: number; callId: string; name: string; input: unknown; toolset?: string; guardrailsPassed?: { name: string; reason: string }[] }
  /** An async HTTP tool took the job (202): the run waits for its result until `deadline`. */
  | { type: "tool-started"; step: number; callId: string; name: string; deadline: string }
  | { type: "tool-result"; step: number; callId: string; name: string; ok: boolean; summary: string; error?: string; costUsd: number; toolset?: string; notRun?: true }
  /** An agent tool call started its child run (docs/children.md). */
  | { type: "child-started"; callId: string; childId: string }
  /** A child run ended and told this run so: its end status and what it spent. */
  | { type: "child-ended"; callId: string; childId: string; status: RunStatus; spentUsd: number }
  /**
   * A message the person sent while the run worked (or that waited for the next segment) went into
   * the history here: before model call `step`. `mode` as it was sent.
   */
  | { type: "user-message"; step: number; messageId: string; mode: MessageMode; content: Content }
  /** A guardrail's verdict (docs/guardrails.md): `action` is what it did ("pass" when it passed). */
  | { type: "guardrail"; step: number; name: string; stage: GuardrailStage; pass: boolean; action: "pass" | "stop" | "reject" | "ask" | "retry"; reason: string; costUsd: number; callId?: string; tool?: string }
  /** Model call `step` and its tool calls are done: the run's spend after them, tool costs included. */
  | { type: "step"; step: number; spentUsd: number }
  /** A loop guard tripped on the turn of model call `step`: `verdict` is what happened (docs/guardrails.md); `message` what the model or the person was told. */
  | { type: "loop-guard"; step: number; verdict: LoopPolicy; trips: LoopTrip[]; message: string }
  | ({ type: "waiting" } & Waiting)
  /** `results`: for a toolset batch, which of its actions the client answered and how (actions after a failed one are left out). */
  /** `content`: a loop guard's ask's answer (which is no call's result, so the history does not hold it). */
  | { type: "answered"; callId: string; results?: { callId: string; ok: boolean }[]; messageId?: string; content?: Content }
  /** An MCP server's tools were listed (once per run): what the model is offered, and the tools left out, each with why. */
  | { type: "mcp-tools"; server: string; tools: string[]; refused: { tool: string; reason: string }[]; incomplete?: true }
  | {
      type: "end";
      status: RunStatus;
      stoppedBy: StoppedBy;
      finalText?: string;
      final?: unknown;
      spentUsd: number;
      steps: number;
      /** The final answer (after tool work) is still shorter than the run's minAnswerChars after the one more call it got. */
      shortAnswer?: true;
      /** stoppedBy "guardrail": the check that ended the run. */
      guardrail?: GuardrailTrip;
      error?: ApiError;
    };

/** A stored event as sent to clients: seq (gap-free from 1) and time added. Live-only events have no seq. */
export type StoredEvent = RunEvent & { seq: number; at: string };

// ---------------------------------------------------------------------------------------------
// User tokens, the inbox and webhooks

/** POST /v1/tokens: a user token for one subject, shown once. */
export type UserToken = { token: string; id: string; subject: string; expiresAt: string; budgetUsdPerDay: number };

/** The question a waiting run asks, as the inbox lists it; `input` is null and `truncated` true when it was too large to list. */
export type SummaryWaiting = { kind: WaitingKind; callId: string; name: string; input: unknown; batch?: BatchAction[]; truncated?: true; guardrail?: { name: string; reason: string } };

/**
 * A run as its subject's inbox lists it: the state of its last status change. `version` counts the
 * run's status changes; steps and spend are as of the last one.
 */
export type RunSummary = {
  id: string;
  status: RunStatus;
  stoppedBy?: StoppedBy;
  steps: number;
  spentUsd: number;
  createdAt: string;
  updatedAt: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  waiting?: SummaryWaiting;
  subject?: string;
  scheduleId?: string;
  firedAt?: string;
  /** A child run's parent. */
  parentId?: string;
  /** The stored agent (and version) the run was made from. */
  agent?: AgentOfRun;
  version: number;
};

/** GET /v1/runs: one page, newest first; `nextCursor` fetches the next one. */
export type RunsPage = { runs: RunSummary[]; nextCursor?: string; lastSeq?: number };

export type InboxEventType = "run-started" | "run-waiting" | "run-answered" | "run-resumed" | "run-ended" | "run-deleted";

/** A change to one of a subject's runs, as its inbox streams it. `callId`: the call a run-answered answered. */
export type InboxEvent = { type: InboxEventType; run: RunSummary; callId?: string; redacted?: true };

/** An inbox event as sent to clients: seq is gap-free from 1 per subject. */
export type StoredInboxEvent = InboxEvent & { seq: number; at: string };

export type WebhookEventType = "run.waiting" | "run.finished" | "run.failed" | "run.cancelled";

/** One webhook event on its way to one receiver: the deployment's WEBHOOK_URL or the run's own `webhook.url`. */
export type WebhookDelivery = {
  /** The webhook-id header: the same on every attempt. */
  id: string;
  type: WebhookEventType;
  target: "deployment" | "run";
  state: "pending" | "delivered" | "failed";
  attempts: number;
  /** The HTTP status of the last attempt; 0 when no answer arrived. */
  lastStatus?: number;
  lastError?: string;
  nextAttemptAt?: string;
};

/** The body of every webhook request (Standard Webhooks layout: type, timestamp, data). */
export type WebhookPayload = { type: WebhookEventType; timestamp: string; data: { run: RunSummary; error?: ApiError } };
