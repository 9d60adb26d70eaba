// The loop's public types: the same message and tool-call shapes as the HTTP API (docs/api.md),
// and the loop's own options and results, so the service and the library speak one language.
import type { z } from "zod";
import type { LoopGuards, LoopPolicy, LoopTrip } from "./guards/loops/loop-policy";
import type { GuardrailEvent, GuardrailPass, GuardrailTrip, LoopGuardrail } from "./guardrails/guardrail-types";
import type { TextPart, ImagePart, ContentPart, Content, ToolCall, UserMessage, AssistantMessage, ToolMessage, ChatMessage, Usage, ServerToolUse, StopReason, StoppedBy, CompactionMode, MessageMode } from "./message-types";

export type * from "./guardrails/guardrail-types";
export type { TextPart, ImagePart, ContentPart, Content, ToolCall, UserMessage, AssistantMessage, ToolMessage, ChatMessage, Usage, ServerToolUse, StopReason, StoppedBy, CompactionMode, MessageMode };

export type ToolDefinition = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The provider's own entry for this tool (a native client tool type, a provider tool): sent as given instead of the fields above. */
  native?: Record<string, unknown>;
};

/** What one model call sends. `messages` are copies carrying the loop's cache marks. */
export type GenerateRequest = {
  prompt: "";
  system?: string;
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** "none" on the last turn without finish tools: tools stay listed so the cache prefix holds. */
  toolChoice: "auto" | "none";
  cacheSystem: boolean;
  maxTokens?: number;
  params?: { reasoning: unknown };
  /** The turn of the model this request asks for: the history's turns (its assistant messages, records of compactions aside) + 1. Never sent to a model. */
  call?: number;
  /** "summary": the loop's own call that compacts the history (see compaction.ts); it is not a turn of the run. */
  purpose?: "turn" | "summary";
  /** Provider-native compaction: the provider compacts when the prompt passes `atTokens` and pauses (stop reason "compaction"). */
  compaction?: { atTokens: number; instructions?: string };
  /** The provider's execution container the history's newest turn used (see container.ts): the next request carries it on. */
  container?: ContainerRecord;
};

/** A provider-side execution container (code execution), as a turn's providerBlocks record it. */
export type ContainerRecord = { id: string; expiresAt?: string };

export type GenerateResult = {
  message: AssistantMessage;
  usage: Usage;
  costUsd: number;
  stopReason: StopReason;
  /** Calls of the provider's own tools in this answer (a web search, code execution): run by the provider, kept in providerBlocks. */
  providerToolCalls?: ToolCall[];
  /**
   * The provider has no other answer to give (the scripted provider at its script's last turn): a
   * final answer stands as it is, without the one more call a short or empty one would get
   * (answer-follow-up.ts), which could only be answered "The script has no more turns."
   */
  stands?: true;
};

export type GenerateContext = {
  signal: AbortSignal;
  onDelta?: (delta: string) => void;
  /** An attempt that had streamed text failed: the deltas so far are void (a retry streams the text again). */
  onTextVoid?: () => void;
  /** An aborted call reports what it had cost so far (its prompt's tokens, reported before the abort), if it knows. */
  onPartialCost?: (costUsd: number) => void;
};
export type Generate = (request: GenerateRequest, context: GenerateContext) => Promise<GenerateResult>;

/** USD per token of one model, for the largest cost a call could have (see budget-ceiling.ts). */
export type TokenPrices = { input: number; output: number; cacheWrite: number };

/** What a tool hands back. `value` is the whole output (a finish tool's `final`); `content` is what the model sees. */
export type ToolOutput = { content: Content; value?: unknown; costUsd?: number; isError?: boolean };

export type ToolContext = {
  signal: AbortSignal;
  callId: string;
  /** The loop's step key of this call (`tool/<n>/<callId>`, …), stable across replays. */
  key: string;
};

export type Validation<I> = { ok: true; value: I } | { ok: false; issues: { path: string; message: string }[] };

type ToolBase<I> = {
  name: string;
  description: string;
  /** A zod schema; or give `inputSchema` (JSON Schema) and `validate`. */
  schema?: z.ZodType<I>;
  inputSchema?: Record<string, unknown>;
  validate?(input: unknown): Validation<I>;
  /** The loop stops before running this tool until the person approves it. */
  approval?: boolean;
  /** An action of a client toolset (see toolset.ts): answered by the client in one batch with the toolset's other actions of the turn. */
  toolset?: ToolsetMembership;
  /** The provider's own entry for this tool (a native client tool type): sent as given instead of the definition. */
  native?: Record<string, unknown>;
  /**
   * Its run does no I/O, sets no timer and awaits nothing but itself (the calculator, the clock): a
   * durable journal may write its step together with the next ones (src/durable/engine/at-once.ts).
   */
  answersAtOnce?: true;
};

/**
 * Which client toolset a spec belongs to. `action`: the action this spec is (the model sees it as
 * a tool of its own). `members`: the spec stands for every action of a provider-native toolset,
 * whose calls name the toolset and the action (ToolCall.toolset). Neither: the spec is one native
 * tool whose every call is one action named as the tool.
 */
export type ToolsetMembership = { name: string; action?: string; members?: boolean };

// Methods (not function properties) so that a ToolSpec<{ shot: number }> fits where any spec goes.
export type ToolSpec<I = unknown> = ToolBase<I> & {
  run?(input: I, context: ToolContext): Promise<ToolOutput | string>;
  /** start + wait: a restart after start only waits, so outside work never starts twice. */
  start?(input: I, context: ToolContext): Promise<{ handle: unknown; costUsd?: number }>;
  wait?(handle: unknown, context: ToolContext): Promise<ToolOutput | string>;
  /** A client tool is answered by the caller, like an ask. */
  client?: boolean;
};

/** Any tool, whatever its input type. */
export type AnyToolSpec = ToolSpec<unknown>;

export type StepWork<T> = (signal: AbortSignal) => Promise<StepOutput<T>>;
export type StepOutput<T> = {
  value: T;
  costUsd: number;
  /** Stored events of this step, for a journal that commits them with the value. */
  events: StoredLoopEvent[];
};
/** The journal: run `work` once per key and return the stored value on a replay. */
export type Step = <T>(key: string, work: StepWork<T>) => Promise<T>;

export type Budget = {
  usd: number;
  /** Share of `usd` after which the next model call is the last one. */
  finishAt?: number;
  /** Spend already made before this run (for example earlier segments). */
  spentUsd?: number;
  /** Outside spend to count as well (a shared budget). */
  spent?: () => Promise<number>;
};

export type CacheMode = "auto" | "system" | "none";

export type CompactionOptions = {
  mode: CompactionMode;
  /** Compact once a model call's prompt passes this many input tokens. */
  atTokens: number;
  /** Extra instructions for the summary. */
  instructions?: string;
};

/**
 * A compaction asked for by the caller (compaction on demand): it happens before model call
 * `step` of this loop call (1-based, as step keys count), whatever the prompt's size. `instructions`
 * replace the compaction's own for that one compaction.
 */
export type CompactionRequest = { step: number; instructions?: string };

/**
 * Typed final output: a finish tool whose input, checked against its schema, is the run's `final`.
 * It is offered on every step and alone on the last; a hand-in ends the loop `done`, and a loop
 * that never gets one ends on `steps`. Give `schema` (zod) or `inputSchema` (JSON Schema) with `validate`.
 */
export type OutputOptions = {
  /** The tool's name (default "final_answer"). */
  name?: string;
  description?: string;
  schema?: z.ZodType;
  inputSchema?: Record<string, unknown>;
  validate?(input: unknown): Validation<unknown>;
};

export type Asked = {
  kind: "ask" | "approval" | "client-tool" | "client-toolset";
  /** For a toolset batch: its first action's call (the batch is answered by this id). */
  callId: string;
  /** For a toolset batch: the toolset. */
  name: string;
  input: unknown;
  /** For a toolset batch: every action of the toolset that this turn made and the client is to run, in call order. */
  batch?: BatchAction[];
  /** An approval a tool check asked for (onFail "ask"): the check and why the call failed it. */
  guardrail?: { name: string; reason: string };
};

/** One action of a toolset batch. */
export type BatchAction = { callId: string; action: string; input: unknown };

export type RunToolLoopOptions = {
  generate: Generate;
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools?: AnyToolSpec[];
  /** The provider's own tools (a web search, code execution), passed to every request as given; the provider runs them. */
  providerTools?: Record<string, unknown>[];
  finishTools?: string[];
  step: Step;
  /** Model calls the run may make in all, those before these messages included (see stepsBefore). */
  maxSteps?: number;
  /**
   * Model calls the same run made before these messages (an earlier part of a conversation that
   * was continued after an answer). They count toward maxSteps, so an answer never resets it.
   */
  stepsBefore?: number;
  budget?: Budget;
  finishNote?: string;
  keepImages?: number;
  /** "exact" (default): images past keepImages go at once; "batched": they go keepImages at a time, so the cached prefix changes once every keepImages steps. */
  imagePruning?: "exact" | "batched";
  /** Tool results longer than this (about 4 characters a token) are cut in requests, with a note; the history keeps them whole. */
  maxToolResultTokens?: number;
  compaction?: CompactionOptions;
  /** Prices of the model, so no call can cost more than the budget has left (see budget-ceiling.ts). */
  prices?: TokenPrices;
  cache?: CacheMode;
  reasoning?: unknown;
  maxTokens?: number;
  /** Decisions on approval calls, by call id: true runs the call, false denies it. */
  approvals?: Record<string, boolean>;
  /** "report" (default): a throwing tool becomes an error result; "stop": the loop ends with the error. */
  toolErrors?: "report" | "stop";
  /**
   * Where the current question began in `messages` (default: the newest user message, see
   * question-start.ts). The repeated-call guard, the doom-loop flag and the check for tool work
   * before a short answer count from there. 0 counts the whole history.
   */
  questionStart?: number;
  /**
   * After tool work, a final answer shorter than this many characters gets one more model call,
   * with no tools offered, asking for the whole answer (default 100; 0 turns the check off).
   */
  minAnswerChars?: number;
  /** Typed final output: a finish tool whose checked input is the result's `final` (see OutputOptions). */
  output?: OutputOptions;
  /**
   * Loop detectors and what each does when it trips (guards/loops/loop-policy.ts): each detector's
   * levels over the defaults. Without it, no loop guard runs (the repeated-call guard always does).
   */
  loopGuards?: LoopGuards;
  /** Compactions the caller asked for, each before a given model call. */
  compactionRequests?: CompactionRequest[];
  /** Messages the person sends while the loop works (incoming.ts). */
  incoming?: Incoming;
  /** Checks that can stop the run: on the input, each tool call, the output (guardrails/). */
  guardrails?: LoopGuardrail[];
  onStep?: (event: LoopEvent) => void;
  signal?: AbortSignal;
};

export type RunToolLoopResult = {
  stoppedBy: StoppedBy;
  finalText: string;
  final?: unknown;
  asked?: Asked;
  messages: ChatMessage[];
  spentUsd: number;
  steps: number;
  usage: Usage;
  /** The loop ended on a final answer that is still shorter than minAnswerChars after the one more call it got. */
  shortAnswer?: true;
  /** stoppedBy "guardrail": the check that ended the run. */
  guardrail?: GuardrailTrip;
};

export type ModelEvent = {
  type: "model";
  key: string;
  step: number;
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  costUsd: number;
  spentUsd: number;
  stopReason: StopReason;
  /** Calls of the provider's own tools in this answer (web searches, code execution). */
  providerToolCalls?: ToolCall[];
};
export type ToolResultEvent = {
  type: "tool-result";
  key: string;
  step: number;
  callId: string;
  name: string;
  ok: boolean;
  summary: string;
  error?: string;
  costUsd: number;
  /** The call's client toolset, for an action of one. */
  toolset?: string;
  /** The call was never run (a call closed when the run stopped, a toolset action after a failed one): `summary` says why. */
  notRun?: true;
};
/** The history was compacted before model call `step` + 1: tokens of the prompt before, and an estimate of the prompt after. */
export type CompactionEvent = {
  type: "compaction";
  key: string;
  step: number;
  mode: "native" | "summary";
  /** "request": the caller asked for it (compactionRequests, or compactNow). */
  reason: "threshold" | "overflow" | "request";
  tokensBefore: number;
  tokensAfter: number;
};
/** Messages the person sent while the run worked went into the history before model call `step`. */
export type UserMessageEvent = { type: "user-message"; key: string; step: number; messageId: string; mode: MessageMode; content: Content };
/** A loop guard tripped on the turn of model call `step`: its verdict, and each detector that reached a level. */
export type LoopGuardEvent = {
  type: "loop-guard";
  key: string;
  step: number;
  verdict: LoopPolicy;
  trips: LoopTrip[];
  /** What the model or the person is told. */
  message: string;
};
export type StoredLoopEvent = ModelEvent | ToolResultEvent | CompactionEvent | UserMessageEvent | LoopGuardEvent | GuardrailEvent;

/** queue: into the history before the next model call; interrupt: the model call in flight is aborted first. */
export type IncomingMessage = { id: string; mode: MessageMode; content: Content };
/**
 * Where the loop takes the person's messages from: a take is the journal step `key`, before model
 * call `before`. `due`: the step is stored, or messages wait and `before` is not done (a replay puts
 * each message where it went first). `take`: every waiting message, oldest first (the step's work).
 */
export type Incoming = { due(key: string, before: string): boolean; take(): IncomingMessage[] };

export type LoopEvent =
  | { type: "step-start"; key: string; step: number; last: boolean }
  | { type: "text"; step: number; delta: string }
  /** The text streamed so far for this step is void: its model call failed and is tried again. */
  | { type: "text-reset"; step: number }
  /** `guardrailsPassed`: the pure tool checks the call passed (guardrails/tool-guard.ts), when it has any. */
  | { type: "tool-call"; key: string; step: number; callId: string; name: string; input: unknown; toolset?: string; guardrailsPassed?: readonly GuardrailPass[] }
  | StoredLoopEvent
  /** A model call and its tool calls are done: the run's spend after them, tool costs included. */
  | { type: "step"; key: string; step: number; spentUsd: number }
  | {
      type: "stop";
      stoppedBy: StoppedBy | "error";
      messages: ChatMessage[];
      spentUsd: number;
      steps: number;
      shortAnswer?: true;
      guardrail?: GuardrailTrip;
      error?: unknown;
    };
