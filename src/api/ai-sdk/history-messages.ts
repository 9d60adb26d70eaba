// A run's history as the AI SDK's `UIMessage[]` (GET /v1/ai-sdk/{v}/chat/{runId}/messages): the
// messages it began with, then per assistant turn the person's message that opened it (a continue)
// and one assistant message made by the stream's own mapping over the turn's events, under the
// same id the stream uses (messageIdOf). Pure.
import type { ChatHistory } from "../rpc/run-rpc";
import type { RunStatus } from "../types";
import type { ChatMessage, Content } from "../../loop/types";
import { canonicalJson } from "../../lib/canonical-json";
import { chunksFor, chunkState, type ChatEvent } from "./event-chunks";
import { applyChunk } from "./message-parts";
import { toolResultsOf } from "./tool-output";
import { partsOfContent } from "./ui-content";
import type { UIMessage } from "./ui-chunks";
import type { ChatCaps } from "./versions";

/** The assistant message of turn `turn` (1 from the run's start, one more per continue). */
export function messageIdOf(runId: string, turn: number): string {
  return `${runId}-${turn}`;
}

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

export function historyMessages(input: { runId: string; status: RunStatus; caps: ChatCaps; history: ChatHistory }): UIMessage[] {
  const { runId, status, caps, history } = input;
  const events = history.events as unknown as ChatEvent[];
  const results = toolResultsOf(history.messages);
  const continues = continuesOf(history.messages, history.initialCount, events);
  const pastThrough = pastThroughOf(status, events);
  const out = initialMessages(runId, history.messages.slice(0, history.initialCount));
  let turn = 1;
  let message: UIMessage = { id: messageIdOf(runId, turn), role: "assistant", parts: [] };
  let state = chunkState(message.id, caps, pastThrough);
  let texts = new Map<string, { type: "text"; text: string; state?: "done" }>();
  for (const event of events) {
    for (const chunk of chunksFor(state, event, (id) => results.get(id))) applyChunk(message, chunk, texts);
    if (event.type === "end" && (event.status === "finished" || event.status === "cancelled")) {
      if (shows(message)) out.push(message);
      const content = continues[turn - 1];
      turn++;
      if (content !== undefined) out.push({ id: `${runId}-${turn}-user`, role: "user", parts: partsOfContent(content) });
      message = { id: messageIdOf(runId, turn), role: "assistant", parts: [] };
      state = chunkState(message.id, caps, pastThrough);
      texts = new Map();
    }
  }
  if (shows(message)) out.push(message);
  return out;
}
