// A task's history (A2A's `Task.history`): the messages of its question, oldest first. From the
// run's own history: the user message that opened the task (the create's, or the continue's), then
// in the order they came the messages the run took while it worked on it, each model call's text,
// each question it asked and the answer it got (an ask's or a client tool's; an approval has no
// words). The events say which task each belongs to (the task fold's own rule); the run's messages
// hold what the events do not carry whole: the opening messages and the answers. Pure.
import { canonicalJson } from "../../lib/text/canonical-json";
import type { ChatMessage, Content, ToolMessage } from "../../loop/types";
import type { StoredEvent } from "../types";
import type { A2aMessage, A2aPart } from "./a2a-types";
import { taskIdOf } from "./task-ids";
import { questionOf, waitingData } from "./task-view";

/** The events a history is made of. */
export type HistoryEvent = Extract<StoredEvent, { type: "user-message" | "model" | "waiting" | "answered" }>;

export function isHistoryEvent(event: StoredEvent): event is HistoryEvent {
  return event.type === "user-message" || event.type === "waiting" || event.type === "answered" || (event.type === "model" && event.text !== "");
}

function partsOf(content: Content): A2aPart[] {
  if (typeof content === "string") return [{ text: content }];
  return content.map((part): A2aPart => (part.type === "text" ? { text: part.text } : { data: { image: { mimeType: part.mimeType, hash: part.hash } } }));
}

/**
 * The user messages that opened tasks 2, 3, …: the history's user messages after the first (the
 * create's), less those the run took while it worked (each told by a `user-message` event, in order).
 */
function continuesOf(messages: readonly ChatMessage[], taken: readonly Content[]): Content[] {
  const takenKeys = taken.map((content) => canonicalJson(content));
  let next = 0;
  const continues: Content[] = [];
  for (const message of messages.filter((message) => message.role === "user").slice(1)) {
    if (next < takenKeys.length && takenKeys[next] === canonicalJson(message.content)) next++;
    else continues.push(message.content);
  }
  return continues;
}

export type HistoryInput = {
  runId: string;
  /** The run's history (GET /v1/runs/{id}/messages). */
  messages: readonly ChatMessage[];
  /** The history events of each task, by task number (index 0: task 1). */
  events: readonly (readonly HistoryEvent[])[];
};

/** Task `n`'s history, oldest first. */
export function taskHistory(input: HistoryInput, n: number): A2aMessage[] {
  const { runId, messages } = input;
  const taskId = taskIdOf(runId, n);
  const message = (messageId: string, role: A2aMessage["role"], parts: A2aPart[]): A2aMessage => ({ messageId: `${taskId}/${messageId}`, role, parts, taskId, contextId: runId });
  const taken = input.events.flat().flatMap((event) => (event.type === "user-message" ? [event.content] : []));
  const opening = n === 1 ? messages.find((chat) => chat.role === "user")?.content : continuesOf(messages, taken)[n - 2];
  const results = new Map(messages.filter((chat): chat is ToolMessage => chat.role === "tool").map((chat) => [chat.toolCallId, chat]));
  const history: A2aMessage[] = opening === undefined ? [] : [message("user/0", "ROLE_USER", partsOf(opening))];
  const asked = new Map<string, string>();
  for (const event of input.events[n - 1] ?? []) {
    if (event.type === "user-message") history.push(message(`user/${event.seq}`, "ROLE_USER", partsOf(event.content)));
    else if (event.type === "model") history.push(message(`model/${event.seq}`, "ROLE_AGENT", [{ text: event.text }]));
    else if (event.type === "waiting") {
      asked.set(event.callId, event.kind);
      history.push(message(`waiting/${event.callId}`, "ROLE_AGENT", [{ text: questionOf(event) }, { data: waitingData(event) }]));
    } else {
      // A loop guard's ask is no call's result: its answer is the event's own.
      const answer = results.get(event.callId)?.content ?? event.content;
      if (answer !== undefined && asked.get(event.callId) !== "approval") history.push(message(`answer/${event.callId}`, "ROLE_USER", partsOf(answer)));
    }
  }
  return history;
}

/** The newest `length` messages of a history (all of them when undefined). */
export function lastMessages(history: A2aMessage[], length: number | undefined): A2aMessage[] {
  return length === undefined ? history : length <= 0 ? [] : history.slice(-length);
}
