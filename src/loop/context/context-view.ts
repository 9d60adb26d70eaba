// What a request is built from: the history after its newest compaction. The history itself (the
// journal, result.messages, GET /messages) always keeps every turn; a compaction only changes what
// later requests send. Two kinds of compaction leave a mark in the history:
//
//   native   an assistant turn whose providerBlocks hold a provider's compaction block with a
//            summary (its `content`); requests start at that turn, which goes back to the provider
//            unchanged. A block without a summary is a failed compaction and cuts nothing.
//   summary  a record the loop appends after its own summary call: an assistant message with no
//            text whose providerBlocks hold { type: SUMMARY_BLOCK, summary, keepFrom, through }.
//            Requests send the summary as a user message, then the turns from `keepFrom` on
//            verbatim (every tool call next to its result), then what came after the record.
//            Records are never sent to a provider as themselves.
import { textOf } from "../content";
import type { AssistantMessage, ChatMessage } from "../types";

export const SUMMARY_BLOCK = "ratchet.summary";

export type SummaryRecord = { type: typeof SUMMARY_BLOCK; summary: string; keepFrom: number; through: number };

function blocksOf(message: ChatMessage): unknown[] {
  return message.role === "assistant" ? (message.providerBlocks ?? []) : [];
}

const isSummaryBlock = (candidate: unknown) => (candidate as { type?: unknown } | null)?.type === SUMMARY_BLOCK;

export function summaryOf(message: ChatMessage): SummaryRecord | undefined {
  // Most turns carry no provider blocks: no list and no function made to look (the loop detectors ask of every turn).
  if (message.role !== "assistant" || message.providerBlocks === undefined) return undefined;
  return message.providerBlocks.find(isSummaryBlock) as SummaryRecord | undefined;
}

/** A record of the loop's own compaction, not a turn of the model. */
export function isSummaryRecord(message: ChatMessage): boolean {
  return summaryOf(message) !== undefined;
}

/** An assistant turn carrying a provider's compaction block with a summary. */
function hasNativeCompaction(message: ChatMessage): boolean {
  return blocksOf(message).some((block) => {
    const candidate = block as { type?: unknown; content?: unknown } | null;
    return candidate?.type === "compaction" && typeof candidate.content === "string" && candidate.content.length > 0;
  });
}

export function summaryRecord(summary: string, keepFrom: number, through: number): AssistantMessage {
  const block: SummaryRecord = { type: SUMMARY_BLOCK, summary, keepFrom, through };
  return { role: "assistant", content: "", providerBlocks: [block] };
}

/** How the summary reads in a request: a user message before the turns kept verbatim. */
export function summaryMessage(record: SummaryRecord): ChatMessage {
  const span = record.through === 0 ? "of the conversation so far" : `of turns 1–${record.through} of this conversation`;
  return { role: "user", content: `Summary ${span} (compacted to fit the context window; the turns after it follow unchanged):\n\n${record.summary}` };
}

const withoutRecords = (messages: ChatMessage[]) => messages.filter((message) => !isSummaryRecord(message));

/** A compaction mark: a record, or a native compaction turn with its summary. The view starts anew at one. */
export function isCompactionMark(message: ChatMessage): boolean {
  return isSummaryRecord(message) || hasNativeCompaction(message);
}

/** Index of the newest compaction mark in `history`, or -1. */
export function newestCompaction(history: ChatMessage[]): number {
  for (let i = history.length - 1; i >= 0; i--) if (isCompactionMark(history[i]!)) return i;
  return -1;
}

/** The messages a request is built from. */
export function contextView(history: ChatMessage[]): ChatMessage[] {
  const at = newestCompaction(history);
  if (at < 0) return history.some(isSummaryRecord) ? withoutRecords(history) : history;
  const record = summaryOf(history[at]!);
  if (record === undefined) return withoutRecords(history.slice(at));
  return [summaryMessage(record), ...withoutRecords(history.slice(record.keepFrom, at)), ...withoutRecords(history.slice(at + 1))];
}

/** The newest assistant message that is a turn of the model (records are not). */
export function lastTurnIndex(history: ChatMessage[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role === "assistant" && !isSummaryRecord(message)) return i;
  }
  return -1;
}

/** A turn that holds a provider's compaction block (with a summary or a failed one): bookkeeping, not an answer. */
export function isCompactionTurn(message: ChatMessage): boolean {
  return blocksOf(message).some((block) => (block as { type?: unknown } | null)?.type === "compaction");
}

/** A turn of the model that answered: an assistant message that is neither a record nor a compaction turn. */
export function isAnsweredTurn(message: ChatMessage): boolean {
  return message.role === "assistant" && !isSummaryRecord(message) && !isCompactionTurn(message);
}

/** Turns of the model in `messages` that answered (see isAnsweredTurn). */
export function turnCount(messages: ChatMessage[]): number {
  return messages.filter(isAnsweredTurn).length;
}

/** A rough token count: about 4 characters a token, an image ~1,600 tokens. Used for thresholds and estimates only. */
export function estimateTokens(messages: ChatMessage[]): number {
  let chars = 0;
  let images = 0;
  for (const message of messages) {
    chars += textOf(message.content).length + 16;
    if (typeof message.content !== "string") images += message.content.filter((part) => part.type === "image").length;
    if (message.role === "assistant") {
      chars += JSON.stringify(message.toolCalls ?? []).length;
      for (const block of message.providerBlocks ?? []) chars += JSON.stringify(block).length;
    }
  }
  return Math.ceil(chars / 4) + images * 1_600;
}
