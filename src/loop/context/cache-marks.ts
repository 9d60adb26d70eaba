// Prompt-cache marks: a pure function of the history and the options, so a
// resumed run sends byte-identical requests. Marks are set on copies only.
import { isBlank, toParts } from "../content";
import { batchStableEnd, dropOldImages, stableEnd, type ImagePruning } from "./keep-images";
import type { CacheMode, ChatMessage, ContentPart } from "../types";

export const MAX_BREAKPOINTS = 4;

type Place = { message: number; part: number };

export type MarkOptions = {
  cache: CacheMode;
  keepImages: number | undefined;
  imagePruning?: ImagePruning;
  maxSteps: number;
  /** The 1-based model call this request is for. */
  step: number;
};

/** The newest stable user message or tool message with text, and its last non-blank text part. */
function markPlace(form: ChatMessage[], end: number): Place | undefined {
  for (let i = end - 1; i >= 0; i--) {
    const message = form[i]!;
    if (message.role === "assistant") continue;
    const parts = toParts(message.content);
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p]!;
      if (part.type === "text" && !isBlank(part.text)) return { message: i, part: p };
    }
  }
  return undefined;
}

function placeFor(history: ChatMessage[], options: MarkOptions, step: number): Place | undefined {
  const form = dropOldImages(history, options.keepImages, options.imagePruning);
  return markPlace(form, stableEnd(history, { keepImages: options.keepImages, maxSteps: options.maxSteps, step, imagePruning: options.imagePruning ?? "exact" }));
}

/** placeFor(history.slice(0, end), …): without keepImages every message is stable, so no copy is needed. */
function placeBefore(history: ChatMessage[], end: number, options: MarkOptions, step: number): Place | undefined {
  return options.keepImages === undefined ? markPlace(history, end) : placeFor(history.slice(0, end), options, step);
}

function countCallerMarks(form: ChatMessage[]): number {
  let count = 0;
  for (const message of form) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) if (part.type === "text" && part.cache === true) count++;
  }
  return count;
}

function isMarked(form: ChatMessage[], place: Place): boolean {
  const part = toParts(form[place.message]!.content)[place.part];
  return part?.type === "text" && part.cache === true;
}

const samePlace = (a: Place, b: Place) => a.message === b.message && a.part === b.part;

/**
 * Where the rolling marks go: this request's place first, then (batched image pruning) the end of
 * the part that never changes again, then the previous request's. The batch mark is what a
 * request reads from when the cut moves and everything after the old cut is sent anew.
 */
export function rollingPlaces(history: ChatMessage[], options: MarkOptions, callerMarks?: number): Place[] {
  if (options.cache !== "auto") return [];
  const form = dropOldImages(history, options.keepImages, options.imagePruning);
  const places: Place[] = [];
  const current = placeFor(history, options, options.step);
  if (current !== undefined) places.push(current);
  const frozen = batchStableEnd(history, options.keepImages, options.imagePruning ?? "exact");
  const batch = frozen === undefined ? undefined : markPlace(form, frozen);
  if (batch !== undefined && !places.some((place) => samePlace(place, batch))) places.push(batch);
  const lastAssistant = history.findLastIndex((message) => message.role === "assistant");
  if (lastAssistant >= 0) {
    const previous = placeBefore(history, lastAssistant, options, options.step - 1);
    if (previous !== undefined && !places.some((place) => samePlace(place, previous))) places.push(previous);
  }
  // The system mark takes one breakpoint; the caller's marks are never removed. Dropping images
  // leaves text parts as they are, so the caller's marks in the history are those of the form.
  const free = MAX_BREAKPOINTS - 1 - (callerMarks ?? countCallerMarks(form));
  return places.filter((place) => !isMarked(form, place)).slice(0, Math.max(0, free));
}

function setMarks(marked: ChatMessage[], places: Place[]): ChatMessage[] {
  for (const place of places) {
    const message = marked[place.message]!;
    const parts: ContentPart[] = toParts(message.content).map((part, p) =>
      p === place.part && part.type === "text" ? { ...part, cache: true } : part,
    );
    marked[place.message] = { ...message, content: parts } as ChatMessage;
  }
  return marked;
}

/** The request messages: images dropped per keepImages, rolling cache marks set on copies. */
export function requestMessages(history: ChatMessage[], options: MarkOptions): ChatMessage[] {
  const form = dropOldImages(history, options.keepImages, options.imagePruning);
  const places = rollingPlaces(history, options);
  if (places.length === 0) return form;
  return setMarks(form.slice(), places);
}

/**
 * requestMessages(history, options) as a new array the caller owns (never `history` itself), for
 * a history whose caller marks are counted already: one copy of the history, no other pass over it.
 */
export function requestMessagesCopy(history: ChatMessage[], options: MarkOptions, callerMarks: number): ChatMessage[] {
  const form = dropOldImages(history, options.keepImages, options.imagePruning);
  const copy = form === history ? history.slice() : form;
  return setMarks(copy, rollingPlaces(history, options, callerMarks));
}
