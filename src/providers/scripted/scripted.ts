// The offline, deterministic provider: it plays a script of turns, for tests, demos and
// `npm start` without an Anthropic key. Turn i answers the request whose history holds i turns of
// the model beyond the run's own given ones (the request's `call` counts them over the whole
// history, so a compacted request, which sends fewer, still gets the right turn): a replayed or
// resumed run gets the same turn for the same step however many processes it took. The loop's
// summary calls are answered apart, from no turn.
import { z } from "zod";
import { textOf } from "../../loop/content";
import { DEFAULT_CONTEXT_WINDOW } from "../common/context-windows";
import { ContextOverflowError } from "../../loop/errors";
import type { ChatMessage, GenerateContext, GenerateRequest, GenerateResult, StopReason, Usage } from "../../loop/types";
import { ProviderError } from "../common/errors";
import type { Provider } from "../common/types";
import { usd } from "../../lib/money";
import { Holds, holdNameSchema, type WaitForRelease } from "./holds";
import { requestChars, roughTokens } from "./request-size";

export const scriptedTurnSchema = z.strictObject({
  text: z.string().optional(),
  toolCalls: z
    .array(z.strictObject({ id: z.string().min(1).optional(), name: z.string().min(1), input: z.unknown().optional() }))
    .optional(),
  stopReason: z.enum(["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence", "model_context_window_exceeded"]).optional(),
  usage: z
    .strictObject({
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
      cachedReadTokens: z.number().int().nonnegative().optional(),
      cachedWriteTokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
  costUsd: z.number().nonnegative().optional(),
  /** Stream the text as deltas of this many characters (default 16). */
  chunk: z.number().int().positive().optional(),
  /**
   * Wait until the test releases this name before answering (holds.ts): a model call known to be in
   * flight, with no timer to race. After the hold, `delayMs` (if any) still applies.
   */
  hold: holdNameSchema.optional(),
  /**
   * With `hold`: stream this many characters of the text before the hold, the rest after it, so a
   * test finds a step in flight that has streamed part of its text (a reconnect's "text so far").
   */
  streamBeforeHold: z.number().int().nonnegative().optional(),
  /** Wait this long before answering (to be caught mid-step in crash tests). */
  delayMs: z.number().int().nonnegative().max(600_000).optional(),
  /** Fail this call with this message instead of answering. */
  error: z.string().optional(),
  /**
   * With `error`: fail only the first time this turn is reached. The run fails (retryable), and a
   * retry (POST /v1/runs/{id}/retry) gets the turn's answer (its text and tool calls): a retry seen
   * working offline.
   */
  once: z.literal(true).optional(),
  /** Refuse this call as too long for the context window ("prompt is too long") while its prompt is over this many tokens (about 4 characters a token). */
  overflowAbove: z.number().int().positive().optional(),
});
export const scriptSchema = z.array(scriptedTurnSchema).max(10_000);
export type ScriptedTurn = z.infer<typeof scriptedTurnSchema>;

/** Prices for turns that give no cost: a typical mid-size model's, per million tokens. */
const INPUT_USD_PER_MTOK = 3;
const OUTPUT_USD_PER_MTOK = 15;

/** A scripted failure: the turn's `error`, reported like a provider's own failure. */
export class ScriptedProviderError extends ProviderError {
  constructor(message: string) {
    super(message, true);
    this.name = "ScriptedProviderError";
  }
}


function usageOf(turn: ScriptedTurn, request: GenerateRequest, outputText: string): Usage {
  if (turn.usage !== undefined) {
    return {
      inputTokens: turn.usage.inputTokens,
      outputTokens: turn.usage.outputTokens,
      cachedReadTokens: turn.usage.cachedReadTokens ?? 0,
      cachedWriteTokens: turn.usage.cachedWriteTokens ?? 0,
    };
  }
  return { inputTokens: roughTokens(requestChars(request)), outputTokens: roughTokens(outputText.length), cachedReadTokens: 0, cachedWriteTokens: 0 };
}

/** What the prompt of an interrupted call cost: its input tokens (the turn's, or the estimate). */
function promptCostOf(turn: ScriptedTurn, request: GenerateRequest): number {
  return usd((usageOf(turn, request, "").inputTokens * INPUT_USD_PER_MTOK) / 1e6);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function lastUserText(messages: ChatMessage[]): string {
  const user = messages.findLast((message) => message.role === "user");
  return user === undefined ? "" : textOf(user.content);
}

/** The loop's summary call: a summary that says which call it stands for, and what it read. */
function summaryAnswer(request: GenerateRequest): GenerateResult {
  const read = textOf(request.messages.at(-1)?.content ?? "").replace(/\s+/g, " ").trim();
  const text = `(scripted summary before call ${request.call ?? "?"}) ${read.slice(0, 200)}`;
  const usage: Usage = { inputTokens: roughTokens(requestChars(request)), outputTokens: roughTokens(text.length), cachedReadTokens: 0, cachedWriteTokens: 0 };
  const costUsd = usd((usage.inputTokens * INPUT_USD_PER_MTOK + usage.outputTokens * OUTPUT_USD_PER_MTOK) / 1e6);
  return { message: { role: "assistant", content: text }, usage, costUsd, stopReason: "end_turn" };
}

/** With no script: one turn that answers the person's last message. */
function defaultTurn(request: GenerateRequest): ScriptedTurn {
  return { text: `(scripted) You said: ${lastUserText(request.messages)}` };
}

export type ScriptedOptions = {
  turns?: ScriptedTurn[];
  /**
   * For an error turn with `once`: true the first time turn `index` fails (and records that it
   * did), false ever after. The run object records it durably; by default it is kept in memory.
   */
  firstFailure?: (index: number) => Promise<boolean>;
  /** Assistant messages in the run's given history: turn 0 answers the first request after them. */
  offset?: number;
  /**
   * How a turn's `hold` waits for its release. The run object keeps releases durably, so a held
   * call made again after a restart waits again only until its name is released; by default a
   * provider's own in-memory holds, which nothing releases (the call waits until it is aborted).
   */
  hold?: WaitForRelease;
};

/** A `firstFailure` that remembers in memory, for a provider without storage. */
function inMemoryFailures(): (index: number) => Promise<boolean> {
  const failed = new Set<number>();
  return async (index) => {
    if (failed.has(index)) return false;
    failed.add(index);
    return true;
  };
}

function inMemoryHolds(): WaitForRelease {
  const holds = new Holds();
  return (name, signal) => holds.wait(name, signal);
}

/** The turn's wait before it answers: its hold until released, then its delay. */
async function waitBeforeAnswer(turn: ScriptedTurn, hold: WaitForRelease, signal: AbortSignal): Promise<void> {
  if (turn.hold !== undefined) await hold(turn.hold, signal);
  if (turn.delayMs !== undefined && turn.delayMs > 0) await delay(turn.delayMs, signal);
}

export function createScriptedProvider({ turns, offset = 0, firstFailure = inMemoryFailures(), hold = inMemoryHolds() }: ScriptedOptions = {}): Provider {
  async function generate(request: GenerateRequest, context: GenerateContext): Promise<GenerateResult> {
    if (request.purpose === "summary") return summaryAnswer(request);
    const index = (request.call !== undefined ? request.call - 1 : request.messages.filter((message) => message.role === "assistant").length) - offset;
    const turn: ScriptedTurn =
      turns === undefined ? defaultTurn(request) : (turns[index] ?? { text: "The script has no more turns." });
    const text = turn.text ?? "";
    const chunk = turn.chunk ?? 16;
    const stream = (from: number, to: number) => {
      for (let at = from; at < to && context.onDelta !== undefined; at += chunk) context.onDelta(text.slice(at, Math.min(at + chunk, to)));
    };
    const early = turn.hold === undefined ? 0 : Math.min(turn.streamBeforeHold ?? 0, text.length);
    if (turn.hold !== undefined || (turn.delayMs !== undefined && turn.delayMs > 0)) {
      stream(0, early);
      try {
        await waitBeforeAnswer(turn, hold, context.signal);
      } catch (error) {
        // Interrupted while it "thought" (held or delayed): the call still cost its prompt, as a vendor's call does.
        if (context.signal.aborted) context.onPartialCost?.(promptCostOf(turn, request));
        throw error;
      }
    }
    if (context.signal.aborted) throw context.signal.reason;
    if (turn.error !== undefined && (turn.once !== true || (await firstFailure(index)))) throw new ScriptedProviderError(turn.error);
    // The prompt's size is read only when the turn needs it (request-size.ts).
    if (turn.overflowAbove !== undefined) {
      const prompt = roughTokens(requestChars(request));
      if (prompt > turn.overflowAbove) throw new ContextOverflowError(`prompt is too long: ${prompt} tokens > ${turn.overflowAbove} maximum`);
    }
    stream(early, text.length);
    const toolCalls = (turn.toolCalls ?? []).map((call, j) => ({
      id: call.id ?? `call_${index}_${j}`,
      name: call.name,
      input: call.input ?? {},
    }));
    const usage = usageOf(turn, request, toolCalls.length === 0 ? text : text + JSON.stringify(toolCalls));
    const costUsd = usd(turn.costUsd ?? (usage.inputTokens * INPUT_USD_PER_MTOK + usage.outputTokens * OUTPUT_USD_PER_MTOK) / 1e6);
    const stopReason: StopReason = turn.stopReason ?? (toolCalls.length > 0 ? "tool_use" : "end_turn");
    const message = toolCalls.length > 0 ? { role: "assistant" as const, content: text, toolCalls } : { role: "assistant" as const, content: text };
    // The script's last turn (or past it, or no script): nothing else could answer a follow-up call.
    const last = turns === undefined || index >= turns.length - 1;
    return { message, usage, costUsd, stopReason, ...(last ? { stands: true as const } : {}) };
  }
  return { name: "scripted", generate, contextWindow: () => DEFAULT_CONTEXT_WINDOW, nativeCompaction: false };
}
