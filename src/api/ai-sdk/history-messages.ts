// A run's history as the AI SDK's `UIMessage[]` (GET /v1/ai-sdk/{v}/chat/{runId}/messages): the
// messages it began with, then per turn the person's message that opened it (a continue) and the
// assistant messages made by the stream's own mapping over the turn's events, under the ids the
// stream uses (messageIdOf), with the person's messages that split the turn between them (a message
// taken while the run worked, a typed answer), each under the id it was sent with. What a page
// showed is what it gets back after a reload, in order. Pure.
import type { ChatHistory } from "../rpc/run-rpc";
import type { RunStatus } from "../types";
import type { ChatMessage, Content } from "../../loop/types";
import { canonicalJson } from "../../lib/canonical-json";
import { chunksFor, chunkState, messageIdIn, type ChatEvent, type ChunkState } from "./event-chunks";
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

function initialMessages(runId: string, messages: readonly ChatMessage[]): UIMessage[] {
  return messages.flatMap((message, index): UIMessage[] => {
    if (message.role === "tool") return [];
    const parts = partsOfContent(message.content);
    return parts.length === 0 ? [] : [{ id: `${runId}-given-${index}`, role: message.role, parts }];
  });
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

/** The person's message a split stands for: a taken message's content, or the typed answer (the call's result). */
function splitMessage(event: ChatEvent, results: Map<string, { content: Content }>): UIMessage | undefined {
  const split = splitBy(event);
  if (split === undefined) return undefined;
  const content = split.kind === "message" ? (event.content as Content) : results.get(String(event.callId))?.content;
  return { id: split.messageId, role: "user", parts: content === undefined ? [] : partsOfContent(content) };
}

export function historyMessages(input: { runId: string; status: RunStatus; caps: ChatCaps; history: ChatHistory }): UIMessage[] {
  const { runId, status, caps, history } = input;
  const events = history.events as unknown as ChatEvent[];
  const results = toolResultsOf(history.messages);
  const continues = continuesOf(history.messages, history.initialCount, events);
  // Runs continued before continues kept their ids have ids for their newest continues only.
  const idsFrom = continues.length - history.continueIds.length;
  const pastThrough = pastThroughOf(status, events);
  const out = initialMessages(runId, history.messages.slice(0, history.initialCount));
  let turn = 1;
  let state: ChunkState = chunkState({ runId, turn, caps, pastThrough });
  let message: UIMessage = { id: messageIdIn(state), role: "assistant", parts: [] };
  let texts = new Map<string, { type: "text"; text: string; state?: "done" }>();
  const apply = (event: ChatEvent) => {
    for (const chunk of chunksFor(state, event, (id) => results.get(id))) applyChunk(message, chunk, texts);
  };
  const next = (begin: ChunkState["begin"]) => {
    state = chunkState({ runId, turn, caps, pastThrough, k: state.k, begin });
    message = { id: messageIdIn(state), role: "assistant", parts: [] };
    texts = new Map();
  };
  for (const event of events) {
    apply(event);
    const person = splitMessage(event, results);
    if (person !== undefined) {
      // The person spoke: the message before ends, theirs follows, and the next begins with it.
      if (shows(message)) out.push(message);
      out.push(person);
      next({ at: "next-split" });
      apply(event);
      message.id = messageIdIn(state);
    } else if (event.type === "end" && (event.status === "finished" || event.status === "cancelled")) {
      if (shows(message)) out.push(message);
      const content = continues[turn - 1];
      const id = history.continueIds[turn - 1 - idsFrom] ?? `${runId}-${turn + 1}-user`;
      turn++;
      if (content !== undefined) out.push({ id, role: "user", parts: partsOfContent(content) });
      state = chunkState({ runId, turn, caps, pastThrough });
      next({ at: "now" });
    }
  }
  if (shows(message)) out.push(message);
  return out;
}
