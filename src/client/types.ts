// The client's view of the API (docs/api.md). Every shape comes from src/api/types.ts, which
// src/api/schema-checks.ts checks against the zod schemas in both directions, so client and server
// speak the same types. Imports are type-only: the client bundle carries no zod, hono or Workers types.
import type {
  AnswerBody,
  ApiError,
  BatchAction,
  ClientToolsetRef,
  NativeClientTool,
  ProviderToolRef,
  ToolsetAction,
  Waiting,
  CreateRunBody,
  InboxEventType,
  McpServerRef,
  PendingCall,
  RunEvent as ApiRunEvent,
  RunOutput,
  RunsPage,
  RunStatus,
  RunSummary,
  RunView as ApiRunView,
  StoppedBy,
  StoredInboxEvent,
  SummaryWaiting,
  ToolRef,
  ToolRefInput,
  AgentToolByNameRef,
  UserToken,
  WaitingKind,
  WebhookDelivery,
} from "../api/types.ts";
import type { ImageMediaType } from "../api/images/image-types.ts";
import type { CatchUp, Overlap } from "../api/resources/schedule-types.ts";
import type { Usage as SpendUsage } from "../api/rules/spend.ts";
import type { ChatMessage, Content, ContentPart, ImagePart, TextPart, ToolCall, Usage } from "../loop/message-types.ts";

export type { ApiError, ChatMessage, Content, ContentPart, PendingCall, RunOutput, RunStatus, StoppedBy, ToolCall, ToolRef, Usage, WaitingKind };

/**
 * A run as the API shows it. `final` is typed as TFinal: for a run created with `output`, the type
 * its schema describes (the service checked the hand-in against the schema; the client trusts it).
 */
export type RunView<TFinal = unknown> = Omit<ApiRunView, "final"> & { final?: TFinal };

type ApiEndEvent = Extract<ApiRunEvent, { type: "end" }>;

/** An event of a run; the `end` event's `final` typed as TFinal. */
export type RunEvent<TFinal = unknown> = Exclude<ApiRunEvent, ApiEndEvent> | (Omit<ApiEndEvent, "final"> & { final?: TFinal });
export type { InboxEventType, RunsPage, RunSummary, SpendUsage, SummaryWaiting, UserToken, WebhookDelivery };
export type { BatchAction, ClientToolsetRef, NativeClientTool, ProviderToolRef, ToolsetAction, Waiting };
/** An MCP server of a run (`mcpServers` in createRun): its tools are offered as `<name>__<tool>`. */
export type { McpServerRef };

/** What `inbox()` yields: a change of one of the subject's runs, `seq` gap-free from 1 per subject. */
export type InboxEvent = StoredInboxEvent;

/** GET /v1/runs: a filter, a page size (1–100, default 50), the nextCursor of the page before; `subject` with the deployment token; or one schedule's runs (`scheduleId`). */
export type ListRunsOptions = { status?: RunStatus; limit?: number; cursor?: string; subject?: string; scheduleId?: string };

/** One problem with a request, as the API reports it (`path` is dotted: "messages.0.content"). */
export type Issue = { path: string; message: string };

/** An image as a client sends it: inline bytes (`data`, base64), or the `hash` of bytes this run stored before. */
export type ImagePartInput = Omit<ImagePart, "hash" | "mimeType"> & { hash?: string; mimeType: ImageMediaType };

export type { ImageMediaType };
export type ContentInput = string | (TextPart | ImagePartInput)[];

export type ChatMessageInput =
  | { role: "user"; content: ContentInput }
  | { role: "assistant"; content: ContentInput; toolCalls?: ToolCall[]; providerBlocks?: unknown[] }
  | { role: "tool"; toolCallId: string; content: ContentInput; isError?: boolean };

/** One turn of the offline `scripted` provider (src/providers/scripted.ts; checked against its schema). */
export type ScriptedTurn = {
  text?: string;
  toolCalls?: { id?: string; name: string; input?: unknown }[];
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "pause_turn" | "refusal" | "stop_sequence" | "model_context_window_exceeded";
  usage?: { inputTokens: number; outputTokens: number; cachedReadTokens?: number; cachedWriteTokens?: number };
  costUsd?: number;
  /** Stream the text as deltas of this many characters (default 16). */
  chunk?: number;
  /** Wait until this name is released for the run (a local and testing route, docs/api.md), then answer. */
  hold?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Fail this call with this message instead of answering. */
  error?: string;
  /** Refuse this call as too long for the context window while its prompt is over this many tokens. */
  overflowAbove?: number;
};

/** The body of POST /v1/runs. `script` is for provider "scripted" only: the turns it plays. */
export type CreateRunRequest = Omit<CreateRunBody, "messages" | "script" | "tools"> & { messages: ChatMessageInput[]; script?: ScriptedTurn[]; tools?: ToolRefInput[] };

/** A tool as a request gives it: a ToolRef, or an agent tool naming a stored agent (docs/agents.md). */
export type { AgentToolByNameRef, ToolRefInput };

/**
 * The body of POST /v1/runs/:id/fork: the source's model step the fork's prefix ends with, the user's
 * turn to add after it, and the source's fields the fork replaces (docs/forks.md).
 */
export type ForkRequest = Partial<Pick<CreateRunRequest, "system" | "provider" | "model" | "budget" | "maxSteps">> & { tools?: ToolRef[]; atStep: number; messages?: { role: "user"; content: ContentInput }[] };

/** One action's result in the answer to a client toolset's batch. */
export type BatchResultInput = { callId: string; content: ContentInput; isError?: boolean };

/** The body of POST /v1/runs/:id/answer: `content` for an ask or client tool, `approved` for an approval, `results` for a toolset batch. */
export type AnswerRequest = Omit<AnswerBody, "content" | "results"> & { content?: ContentInput; results?: BatchResultInput[] };

/** The body of POST /v1/runs/:id/messages: a new user message, and how many more model calls it may take (default: the run's maxSteps). */
export type ContinueRequest = { content: ContentInput; maxSteps?: number };

/** How a message to a running run goes in: `queue` before the next model call, `interrupt` aborting the one in flight. */
export type MessageMode = "queue" | "interrupt";

/** A one-time ticket for the events endpoint (for a WebSocket or EventSource, which cannot send headers). */
export type Ticket = { ticket: string; expiresAt: string };

/** What creating a run answers: the run and its run token, shown this once. */
export type CreatedRun<TFinal = unknown> = { run: RunView<TFinal>; token: string };

type LiveOnly = Extract<ApiRunEvent, { type: "text" | "text-reset" | "elicitation-failed" }>;

/** A stored event: `seq` is gap-free from 1 per run. */
export type StoredRunEvent<TFinal = unknown> = Exclude<RunEvent<TFinal>, LiveOnly> & { seq: number; at: string };

/** A live-only event (text deltas, and text-reset: drop the text streamed so far for that step): never stored, so it has no seq and is not replayed on reconnect. */
export type LiveRunEvent = LiveOnly & { seq?: undefined; at?: undefined };

/** What `events()` yields. Narrow on `type`. */
export type StreamEvent<TFinal = unknown> = StoredRunEvent<TFinal> | LiveRunEvent;

export type EndEvent<TFinal = unknown> = Extract<StoredRunEvent<TFinal>, { type: "end" }>;

export type { CatchUp, FireOutcome, Overlap, ScheduleFire, SchedulesPage, ScheduleView } from "../api/resources/schedule-types.ts";

/** The body of POST /v1/schedules: the run of `run` (a POST /v1/runs body) started on `cron`. */
export type CreateScheduleRequest = {
  cron: string;
  timezone?: string;
  run: CreateRunRequest;
  overlap?: Overlap;
  catchUp?: CatchUp;
  subject?: string;
  paused?: boolean;
};

/** The body of PATCH /v1/schedules/:id: the fields to change (`paused` pauses or resumes). */
export type UpdateScheduleRequest = Partial<Omit<CreateScheduleRequest, "subject">>;

/** GET /v1/schedules: a page size (1–100, default 50), the nextCursor of the page before; `subject` with the deployment token (absent: the schedules without one). */
export type ListSchedulesOptions = { limit?: number; cursor?: string; subject?: string };

import type { PushEventType } from "../api/resources/push-types.ts";
export type { PushEventType, PushPayload, PushSubscriptionView } from "../api/resources/push-types.ts";

/** POST /v1/push/subscriptions: a browser's PushSubscription (its toJSON() is taken as it is), and what to be told (default: run.waiting). */
export type PushSubscriptionRequest = { endpoint: string; keys: { p256dh: string; auth: string }; expirationTime?: number | null; events?: PushEventType[] };

export type {
  CallFact,
  CaseComparison,
  CaseReference,
  CaseState,
  Comparison,
  DatasetCase,
  DatasetSummary,
  DatasetView,
  Divergence,
  ExperimentCase,
  ExperimentEvent,
  ExperimentProgress,
  ExperimentStatus,
  ExperimentSummary,
  ExperimentView,
  ReplayMode,
  RunFacts,
  Score,
  ScoreDelta,
  Scorer,
  Variant,
} from "../api/resources/eval-types.ts";
import type { CaseReference, DatasetSummary, ExperimentEvent, ExperimentSummary, ExperimentView, Comparison, ReplayMode, Scorer } from "../api/resources/eval-types.ts";

/** A case as a client gives it (docs/evals.md): a recorded run by id, or an inline input (text only), each with an optional reference. */
export type CaseInput =
  | { runId: string; reference?: CaseReference; /** Take the recorded run's own final text and output as the reference. */ recordedReference?: boolean }
  | { messages: ChatMessageInput[]; reference?: CaseReference };

/** Recorded runs of a subject or a schedule to add as cases, filtered as GET /v1/runs filters them. */
export type RunSelection = {
  subject?: string;
  scheduleId?: string;
  agent?: string;
  tag?: string;
  from?: string;
  to?: string;
  /** Default "finished". */
  status?: RunStatus;
  /** 1–200, default 50; newest first. */
  limit?: number;
  recordedReference?: boolean;
};

/** The body of POST /v1/datasets. */
export type CreateDatasetRequest = { name: string; description?: string; cases?: CaseInput[]; select?: RunSelection };

/** The body of POST /v1/datasets/{name}/cases: cases, a selection, or both. */
export type AddCasesRequest = { cases?: CaseInput[]; select?: RunSelection };

/** GET /v1/datasets and GET /v1/experiments: a page size (1–100, default 50) and the nextCursor of the page before. */
export type PageOptions = { limit?: number; cursor?: string };

export type DatasetsPage = { datasets: DatasetSummary[]; nextCursor?: string };
export type ExperimentsPage = { experiments: ExperimentSummary[]; nextCursor?: string };

/** A stored agent by name (its latest version), or one version of it. */
export type AgentRef = string | { name: string; version?: number };

/** Changes to each recording's own request ({} runs the recordings again as they were). */
export type VariantChangesRequest = {
  system?: string;
  provider?: "anthropic" | "openai" | "scripted";
  model?: string;
  tools?: ToolRef[];
  maxSteps?: number;
  maxTokens?: number;
  /** Each case run's budget (default: its recording's). */
  budget?: { usd: number; finishAt?: number };
  script?: ScriptedTurn[];
};

type RubricScorer = Extract<Scorer, { type: "rubric" }>;

/** A scorer as a request gives it: a rubric's `script` (provider "scripted") is the judge's turns. */
export type ScorerRequest = Exclude<Scorer, RubricScorer> | (Omit<RubricScorer, "script"> & { script?: ScriptedTurn[] });

/** The body of POST /v1/experiments: a dataset run against a variant (a stored agent's version, or changes), scored by `scorers`. */
export type CreateExperimentRequest = {
  name?: string;
  dataset: string;
  datasetVersion?: number;
  variant: { agent: AgentRef } | VariantChangesRequest;
  mode?: ReplayMode;
  budget?: { usd: number };
  concurrency?: number;
  scorers: ScorerRequest[];
  /** Another experiment of the same dataset (its id), or "recordings". */
  baseline?: string;
};

/** A stored event of an experiment: `seq` gap-free from 1 per experiment. */
export type StoredExperimentEvent = ExperimentEvent & { seq: number; at: string };

/** The report of GET /v1/experiments/{id}/export?format=json. */
export type ExperimentReport = { experiment: ExperimentView; comparison?: Comparison };
