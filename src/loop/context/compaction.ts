// Loop-driven compaction, for providers without their own: when the last model call's prompt
// passed `compaction.atTokens` (or a call was refused as too long), one summary call runs as its
// own journaled step (`compact/<n>`), and a summary record is appended to the history. Later
// requests send the summary, then the newest turns verbatim (see context-view.ts). Every choice is
// a pure function of the history and the options, so a replay rebuilds the same requests.
import { assertBudget, spentNow } from "../guards/budget";
import { textOf } from "../content";
import { contextView, estimateTokens, isCompactionTurn, isSummaryRecord, lastTurnIndex, newestCompaction, summaryOf, summaryRecord, turnCount } from "./context-view";
import { journaled, type LoopState } from "../loop-state";
import { CHARS_PER_TOKEN } from "./tool-result-cut";
import type { ChatMessage, CompactionEvent, GenerateRequest, StepOutput, Usage } from "../types";
import { addUsd } from "../../lib/money";

/** Share of atTokens the newest turns may keep verbatim after a compaction. */
const KEEP_SHARE = 0.25;
/** The transcript a summary call reads is at most this share of atTokens, so the call itself always fits. */
const TRANSCRIPT_SHARE = 0.5;
/** Each message of the transcript is cut to this many characters. */
const MESSAGE_CHARS = 2_000;
export const SUMMARY_MAX_TOKENS = 4_096;

export const SUMMARY_SYSTEM =
  "You compact a long conversation between a person, an AI assistant and the assistant's tools into a summary the assistant will continue from, " +
  "in place of the turns you are shown. Keep every fact, number, name, decision, result and open question, what the person asked for, and what is " +
  "left to do; drop repetition and pleasantries. Write plain text, no preamble.";

/** What the journal stores for a compaction step. */
export type CompactionStepValue = {
  /** The summary, or null when the call produced none (the history then stays as it was). */
  summary: string | null;
  keepFrom: number;
  through: number;
  tokensBefore: number;
  tokensAfter: number;
  usage: Usage;
  costUsd: number;
};

/** Where the turns not yet summarized begin, and the summary of those before (if any). */
export function summarized(history: ChatMessage[]): { from: number; previous?: string } {
  const at = newestCompaction(history);
  if (at < 0) return { from: 0 };
  const record = summaryOf(history[at]!);
  if (record !== undefined) return { from: record.keepFrom, previous: record.summary };
  const block = (history[at]! as { providerBlocks?: Array<{ type?: string; content?: string }> }).providerBlocks?.find((b) => b.type === "compaction");
  return block?.content === undefined ? { from: at + 1 } : { from: at + 1, previous: block.content };
}

/** Start indexes of the turns (assistant messages that are turns) in history[from..]. */
function turnStarts(history: ChatMessage[], from: number): number[] {
  const starts: number[] = [];
  for (let i = from; i < history.length; i++) {
    const message = history[i]!;
    if (message.role === "assistant" && !isSummaryRecord(message)) starts.push(i);
  }
  return starts;
}

/**
 * The first message kept verbatim: the newest whole turns that fit `budget` tokens (a turn is an
 * assistant message with the tool results after it, so no call is split from its result).
 * Returns `from` when nothing older than the kept turns is left to summarize.
 */
export function keepFromIndex(history: ChatMessage[], from: number, budget: number): number {
  const starts = turnStarts(history, from);
  let keepFrom = history.length;
  let kept = 0;
  for (let t = starts.length - 1; t >= 0; t--) {
    const start = starts[t]!;
    const size = estimateTokens(history.slice(start, keepFrom).filter((message) => !isSummaryRecord(message)));
    if (kept + size > budget) break;
    kept += size;
    keepFrom = start;
  }
  return keepFrom;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} […${(text.length - max).toLocaleString("en-US")} more characters]`;
}

function render(message: ChatMessage, turn: number): string {
  const text = clip(textOf(message.content), MESSAGE_CHARS);
  const images = typeof message.content === "string" ? 0 : message.content.filter((part) => part.type === "image").length;
  const withImages = images > 0 ? `${text}${text === "" ? "" : " "}[${images} image${images > 1 ? "s" : ""}]` : text;
  if (message.role === "user") return `The person said: ${withImages}`;
  if (message.role === "tool") return `Result${message.isError === true ? " (an error)" : ""} of call ${message.toolCallId}: ${withImages}`;
  const calls = (message.toolCalls ?? []).map((call) => `\n  called ${call.name} (call ${call.id}) with ${clip(JSON.stringify(call.input ?? {}), MESSAGE_CHARS)}`);
  return `Turn ${turn}, the assistant said: ${withImages || "(nothing)"}${calls.join("")}`;
}

/** The turns in history[from..to) as plain text, newest kept when they do not all fit `maxChars`. */
export function transcript(history: ChatMessage[], from: number, to: number, maxChars: number, previous?: string): string {
  let turn = turnCount(history.slice(0, from));
  const lines: string[] = [];
  for (let i = from; i < to; i++) {
    const message = history[i]!;
    if (isSummaryRecord(message) || isCompactionTurn(message)) continue;
    if (message.role === "assistant") turn++;
    lines.push(render(message, turn));
  }
  const head = previous === undefined ? "" : `Summary of the turns before these:\n${previous}\n\n`;
  let body = lines.join("\n");
  let omitted = 0;
  while (head.length + body.length > maxChars && lines.length > 1) {
    lines.shift();
    omitted++;
    body = lines.join("\n");
  }
  const gap = omitted > 0 ? `[${omitted} earlier message${omitted > 1 ? "s" : ""} left out to fit]\n` : "";
  return `${head}${gap}${clip(body, Math.max(1_000, maxChars - head.length))}`;
}

export type CompactionReason = "threshold" | "overflow" | "request";

/** Whether to compact before the next model call: the last call's prompt passed atTokens and nothing was compacted since. */
export function shouldCompact(state: LoopState): boolean {
  const compaction = state.options.compaction;
  if (compaction === undefined || compaction.mode === "off" || compaction.mode === "native") return false;
  return state.lastInputTokens !== undefined && state.lastInputTokens > compaction.atTokens && state.compactedAt !== state.steps;
}

function summaryRequest(state: LoopState, text: string, instructions: string | undefined): GenerateRequest {
  const { options } = state;
  const extra = instructions ?? options.compaction?.instructions;
  return {
    prompt: "",
    system: extra === undefined || extra.trim() === "" ? SUMMARY_SYSTEM : `${SUMMARY_SYSTEM}\n\n${extra}`,
    model: options.model,
    messages: [{ role: "user", content: `${text}\n\nWrite the summary now.` }],
    tools: [],
    toolChoice: "auto",
    cacheSystem: false,
    maxTokens: SUMMARY_MAX_TOKENS,
    purpose: "summary",
    call: turnCount(state.messages) + 1,
  };
}

/** The step key of a compaction after `steps` model calls of this loop call. */
function compactionKey(steps: number, reason: CompactionReason, history: ChatMessage[]): string {
  if (reason === "overflow") return `compact/${steps}/overflow`;
  // Asked for by the caller: after a finished or waiting segment, more than one may follow the same model call.
  if (reason === "request") return `compact/${steps}/request/${history.length}`;
  return `compact/${steps}`;
}

/**
 * Runs one compaction as its own step. On success the summary record joins the history; a call
 * that produced no summary leaves the history as it was. Either way no compaction runs again
 * before the next model call. One the caller asked for (reason "request") keeps at least the
 * newest turn verbatim, so a turn whose calls wait for an answer stays whole; it compacts nothing
 * when no older turn is left to summarize. `instructions` replace the compaction's own.
 */
export async function compact(state: LoopState, reason: CompactionReason, instructions?: string): Promise<void> {
  const { options } = state;
  const atTokens = options.compaction?.atTokens ?? Number.POSITIVE_INFINITY;
  const history = state.messages;
  const key = compactionKey(state.steps, reason, history);
  state.compactedAt = state.steps;
  const { from, previous } = summarized(history);
  // The newest turns kept verbatim fit a share of the threshold; after an overflow or on request, a share of the prompt as it is too.
  const current = estimateTokens(contextView(history));
  const keepBudget = KEEP_SHARE * (reason === "threshold" ? Math.min(atTokens, Number.MAX_SAFE_INTEGER) : Math.min(atTokens, current));
  let keepFrom = keepFromIndex(history, from, keepBudget);
  if (reason === "request") keepFrom = Math.min(keepFrom, Math.max(0, lastTurnIndex(history)));
  if (keepFrom <= from) return; // nothing older than the newest turns is left to summarize
  const value = await journaled<CompactionStepValue>(state, key, async (signal): Promise<StepOutput<CompactionStepValue>> => {
    assertBudget(options.budget, await spentNow(options.budget, state.stepCosts));
    const maxChars = (Number.isFinite(atTokens) ? atTokens : 100_000) * TRANSCRIPT_SHARE * CHARS_PER_TOKEN;
    const request = summaryRequest(state, transcript(history, from, keepFrom, maxChars, previous), instructions);
    const result = await options.generate(request, { signal });
    const summary = textOf(result.message.content).trim();
    const through = turnCount(history.slice(0, keepFrom));
    const tokensBefore = state.lastInputTokens ?? estimateTokens(contextView(history));
    const tokensAfter = summary === "" ? tokensBefore : estimateTokens(contextView([...history, summaryRecord(summary, keepFrom, through)]));
    const stored: CompactionStepValue = { summary: summary === "" ? null : summary, keepFrom, through, tokensBefore, tokensAfter, usage: result.usage, costUsd: result.costUsd };
    const events: CompactionEvent[] = summary === "" ? [] : [{ type: "compaction", key, step: state.steps, mode: "summary", reason, tokensBefore, tokensAfter }];
    return { value: stored, costUsd: result.costUsd, events };
  });
  state.stepCosts = addUsd(state.stepCosts, value.costUsd);
  if (value.summary !== null) state.messages.push(summaryRecord(value.summary, value.keepFrom, value.through));
}
