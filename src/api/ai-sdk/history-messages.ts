// A run's history as the AI SDK's `UIMessage[]` (GET /v1/ai-sdk/{v}/chat/{runId}/messages): the
// messages it began with, then per turn the person's message that opened it (a continue) and the
// assistant messages made by the stream's own mapping over the turn's events, under the ids the
// stream uses (messageIdOf), with the person's messages that split the turn between them (a message
// taken while the run worked, a typed answer), each under the id it was sent with. What a page
// showed is what it gets back after a reload, in order. Pure.
import type { ChatHistory } from "../rpc/run-rpc";
import type { RunStatus } from "../types";
import type { ChatMessage, Content } from "../../loop/types";
import { canonicalJson } from "../../lib/text/canonical-json";
import { chunkState, messageIdIn, type ChunkState } from "./chunk-state";
import { chunksFor, type ChatEvent } from "./event-chunks";
import { splitBy } from "./message-splits";
import { applyChunk } from "./message-parts";
import { toolResultsOf } from "./tool-output";
import { partsOfContent } from "./ui-content";
import type { UIMessage } from "./ui-chunks";
import type { ChatCaps } from "./versions";

/** The user messages that opened turns 2, 3, …: the history's user messages after the first ones, less those the run took while it worked (each a `user-message` event, in order). */
function continuesOf(messages: readonly ChatMessage[], initialCount: number, events: readonly ChatEvent[]): Content[] {
  const taken = events.filter((event) => event.type === "user-message").map((event) => canonicalJson(event.content));
  let next = 0;
  const continues: Content[] = [];
  for (const message of messages.slice(initialCount)) {
    if (message.role !== "user") continue;
    if (next < taken.length && taken[next] === canonicalJson(message.content)) next++;
    else continues.push(message.content);
  }
  return continues;
}

/** Stops that the run went on from (an answered wait, a retried failure) are history; the last one stands while the run waits or failed. */
function pastThroughOf(status: RunStatus, events: readonly ChatEvent[]): number {
  const newest = events.at(-1)?.seq ?? 0;
  if (status !== "waiting" && status !== "failed") return newest;
  const lastStop = events.findLast((event) => event.type === "waiting" || event.type === "end");
  return (lastStop?.seq ?? 1) - 1;
}

/** A message with more than the start of a step (a turn cancelled or failed before the model said anything is no bubble). */
function shows(message: UIMessage): boolean {
  return message.parts.some((part) => part.type !== "step-start");
}

/**
 * One message of the chat, with what a Regenerate needs to know of it: a person's message's content
 * as the run holds it (images by hash) and the model steps made before it went in (`given`: one the
 * run began with; a typed answer cannot be the start of a new answer), and an assistant message's
 * first model step.
 */
export type ChatEntry = {
  message: UIMessage;
  person?: { content: Content; stepsBefore: number; given?: true } | { typedAnswer: true };
  firstStep?: number;
};

/** The person's message a split stands for: a taken message's content, or the typed answer (the call's result). */
function splitEntry(event: ChatEvent, results: Map<string, { content: Content }>): ChatEntry | undefined {
  const split = splitBy(event);
  if (split === undefined) return undefined;
  if (split.kind === "typed-answer") {
    // A loop guard's ask is no call's result: its answer is the event's own.
    const content = results.get(String(event.callId))?.content ?? (event.content as Content | undefined);
    return { message: { id: split.messageId, role: "user", parts: content === undefined ? [] : partsOfContent(content) }, person: { typedAnswer: true } };
  }
  const content = event.content as Content;
  return { message: { id: split.messageId, role: "user", parts: partsOfContent(content) }, person: { content, stepsBefore: Number(event.step) - 1 } };
}

function givenEntries(runId: string, messages: readonly ChatMessage[]): ChatEntry[] {
  return messages.flatMap((message, index): ChatEntry[] => {
    if (message.role === "tool") return [];
    const parts = partsOfContent(message.content);
    if (parts.length === 0) return [];
    const entry: ChatEntry = { message: { id: `${runId}-given-${index}`, role: message.role, parts } };
    if (message.role === "user") entry.person = { content: message.content, stepsBefore: 0, given: true };
    return [entry];
  });
}

/**
 * The run's chat, entry by entry. A fork's turns before its fork point are its source's: its own
 * are those after it (and its own continues), and `given: false` leaves out the messages it began
 * with too, for a chat that took them from the fork's source (chat-forks.ts).
 */
export function chatEntries(input: { runId: string; status: RunStatus; caps: ChatCaps; history: ChatHistory; given?: boolean }): ChatEntry[] {
  const { runId, status, caps, history, given = true } = input;
  const events = history.events as unknown as ChatEvent[];
  const results = toolResultsOf(history.messages);
  const allContinues = continuesOf(history.messages, history.initialCount, events);
  // A fork's continues are its own (its source's are in its history too): as many as it kept ids for.
  const continues = history.forked ? allContinues.slice(allContinues.length - history.continueIds.length) : allContinues;
  // Runs continued before continues kept their ids have ids for their newest continues only.
  const idsFrom = continues.length - history.continueIds.length;
  const pastThrough = pastThroughOf(status, events);
  const out = given ? givenEntries(runId, history.messages.slice(0, history.initialCount)) : [];
  let turn = 1;
  let state: ChunkState = chunkState({ runId, turn, caps, pastThrough });
  let entry: ChatEntry = { message: { id: messageIdIn(state), role: "assistant", parts: [] } };
  let texts = new Map<string, { type: "text"; text: string; state?: "done" }>();
  const apply = (event: ChatEvent) => {
    for (const chunk of chunksFor(state, event, (id) => results.get(id))) applyChunk(entry.message, chunk, texts);
    if (entry.firstStep === undefined && (event.type === "step-start" || event.type === "model") && typeof event.step === "number" && state.begin.at === "now") entry.firstStep = event.step;
  };
  const push = () => {
    if (shows(entry.message)) out.push(entry);
  };
  const next = (k: number, begin: ChunkState["begin"]) => {
    state = chunkState({ runId, turn, caps, pastThrough, k, begin });
    entry = { message: { id: messageIdIn(state), role: "assistant", parts: [] } };
    texts = new Map();
  };
  for (const event of events) {
    apply(event);
    const person = splitEntry(event, results);
    if (person !== undefined) {
      // The person spoke: the message before ends, theirs follows, and the next begins with it.
      push();
      out.push(person);
      next(state.k, { at: "next-split" });
      apply(event);
      entry.message.id = messageIdIn(state);
    } else if (event.type === "end" && (event.status === "finished" || event.status === "cancelled")) {
      push();
      const content = continues[turn - 1];
      const id = history.continueIds[turn - 1 - idsFrom] ?? `${runId}-${turn + 1}-user`;
      turn++;
      if (content !== undefined) out.push({ message: { id, role: "user", parts: partsOfContent(content) }, person: { content, stepsBefore: Number(event.steps) } });
      next(0, { at: "now" });
    }
  }
  push();
  return out;
}

export function historyMessages(input: { runId: string; status: RunStatus; caps: ChatCaps; history: ChatHistory }): UIMessage[] {
  return chatEntries(input).map((entry) => entry.message);
}
