import { isSummaryRecord } from "./context-view";
import type { ChatMessage, ContentPart, ImagePart } from "../types";

export type ImagePruning = "exact" | "batched";

/** The fixed text that replaces a dropped image, so every later step sends the same bytes. */
export function droppedImageText(image: ImagePart): string {
  return `[image dropped: ${image.path ?? image.hash}]`;
}

/**
 * For each message, how many assistant turns old it is: a tool message belongs to the assistant
 * turn before it, and that turn's rank is 1 when it is the newest assistant message.
 */
function turnRanks(messages: ChatMessage[]): number[] {
  const ranks = new Array<number>(messages.length).fill(0);
  let assistantsAfter = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "assistant" && !isSummaryRecord(message)) assistantsAfter++;
    else if (message.role === "tool") ranks[i] = assistantsAfter + 1;
  }
  return ranks;
}

function hasImage(message: ChatMessage): boolean {
  return typeof message.content !== "string" && message.content.some((part) => part.type === "image");
}

/** For each message, the 1-based assistant turn it belongs to (a tool message belongs to the turn before it). */
function turnNumbers(messages: ChatMessage[]): { numbers: number[]; total: number } {
  const numbers = new Array<number>(messages.length).fill(0);
  let turn = 0;
  messages.forEach((message, i) => {
    if (message.role === "assistant" && !isSummaryRecord(message)) turn++;
    numbers[i] = turn;
  });
  return { numbers, total: turn };
}

/**
 * Batched pruning keeps the image turns from this one on: it moves keepImages turns at a time,
 * so between keepImages and 2·keepImages − 1 image turns stay, and the cached prefix changes once
 * every keepImages steps instead of every step.
 */
export function batchCut(totalTurns: number, keepImages: number): number {
  if (keepImages <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, (Math.floor(totalTurns / keepImages) - 1) * keepImages + 1);
}

/**
 * Batched pruning: the index of the first message of the batch cut's turn, before which the
 * request form never changes again (its images are gone for good). Undefined for exact pruning.
 */
export function batchStableEnd(messages: ChatMessage[], keepImages: number | undefined, pruning: ImagePruning): number | undefined {
  if (pruning !== "batched" || keepImages === undefined || keepImages <= 0) return undefined;
  const { numbers, total } = turnNumbers(messages);
  const cut = batchCut(total, keepImages);
  const at = messages.findIndex((message, i) => message.role === "assistant" && numbers[i]! >= cut);
  return at < 0 ? messages.length : at;
}

/** Which tool messages keep their images in requests. */
function keepsImages(messages: ChatMessage[], keepImages: number, pruning: ImagePruning): (i: number) => boolean {
  if (pruning === "batched" && keepImages > 0) {
    const { numbers, total } = turnNumbers(messages);
    const cut = batchCut(total, keepImages);
    return (i) => numbers[i]! >= cut;
  }
  const ranks = turnRanks(messages);
  return (i) => ranks[i]! <= keepImages;
}

/**
 * The request form of the history: images of tool results older than the last `keepImages`
 * assistant turns (or, batched, older than the batch cut) become `[image dropped: <name>]`.
 * Unchanged messages are passed through.
 */
export function dropOldImages(messages: ChatMessage[], keepImages: number | undefined, pruning: ImagePruning = "exact"): ChatMessage[] {
  if (keepImages === undefined) return messages;
  const keeps = keepsImages(messages, keepImages, pruning);
  return messages.map((message, i) => {
    if (message.role !== "tool" || keeps(i) || !hasImage(message)) return message;
    const content = (message.content as ContentPart[]).map((part): ContentPart =>
      part.type === "image" ? { type: "text", text: droppedImageText(part) } : part,
    );
    return { ...message, content };
  });
}

/**
 * Index of the first message whose request form can still change in this run: a tool message
 * with images not yet dropped that a later step of this run (up to `maxSteps`) would drop.
 * Everything before it is stable and may be covered by a cache mark.
 */
export function stableEnd(
  messages: ChatMessage[],
  { keepImages, maxSteps, step, imagePruning = "exact" }: { keepImages: number | undefined; maxSteps: number; step: number; imagePruning?: ImagePruning },
): number {
  // Batched: everything is cacheable; the prefix changes (and misses the cache once) every keepImages steps.
  if (keepImages === undefined || (imagePruning === "batched" && keepImages > 0)) return messages.length;
  const ranks = turnRanks(messages);
  const laterSteps = Math.max(0, maxSteps - step);
  for (let i = 0; i < messages.length; i++) {
    const rank = ranks[i]!;
    if (messages[i]!.role === "tool" && rank <= keepImages && rank + laterSteps > keepImages && hasImage(messages[i]!)) {
      return i;
    }
  }
  return messages.length;
}
