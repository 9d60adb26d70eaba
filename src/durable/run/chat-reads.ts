// What a run's chat reads of it (RunObject's messages, chatMarks, chatHistory, chatForks and
// addChatFork): the messages so far, the marks and history the chat's routes answer, and the forks
// the chat follows. Each answers not found for an object that holds no run.
import type { ChatFork, ChatHistory, ChatMarks } from "../../api/rpc/run-rpc";
import type { Outcome, RunView, StoredEvent } from "../../api/types";
import type { ChatMessage } from "../../loop/types";
import type { EngineContext } from "../engine/engine-context";
import { messagesSoFar } from "../engine/messages-so-far";
import { chatMarks } from "../events/log/chat-marks";
import { eventsAfter } from "../events/log/event-log";
import { addChatFork, readChatForks } from "../forks/chat-fork-store";
import { readFork } from "../forks/fork-store";
import { continueMessageIds } from "../person/message-store";
import { notFound, ok } from "./outcome";
import { hasRun } from "./store/run-tables";
import { readRun } from "./store/run-store";
import { readSegment } from "./store/segment-store";
import { toRunView } from "./store/run-view";

export async function messagesOf(engine: EngineContext): Promise<Outcome<{ messages: ChatMessage[] }>> {
  if (readRun(engine.ctx.storage.sql) === undefined) return notFound();
  return ok({ messages: await messagesSoFar(engine) });
}

export function chatMarksOf(engine: EngineContext): Outcome<{ run: RunView; marks: ChatMarks }> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  return run === undefined ? notFound() : ok({ run: toRunView(run), marks: chatMarks(sql) });
}

export async function chatHistoryOf(engine: EngineContext): Promise<Outcome<{ run: RunView; history: ChatHistory }>> {
  const { sql } = engine.ctx.storage;
  const run = readRun(sql);
  if (run === undefined) return notFound();
  const events = eventsAfter(sql, 0).map((event) => JSON.parse(event.text) as StoredEvent);
  const history: ChatHistory = {
    events,
    initialCount: readSegment(sql, 1).messages.length,
    messages: await messagesSoFar(engine),
    continueIds: continueMessageIds(sql),
    forked: readFork(sql) !== undefined,
  };
  return ok({ run: toRunView(run), history });
}

export function chatForksOf(sql: SqlStorage): Outcome<ChatFork[]> {
  return hasRun(sql) ? ok(readChatForks(sql)) : notFound();
}

export function followChatFork(sql: SqlStorage, fork: ChatFork): Outcome<null> {
  if (!hasRun(sql)) return notFound();
  addChatFork(sql, fork);
  return ok(null);
}
