import { lastTurnIndex } from "./context/context-view";
import type { ChatMessage, ToolCall } from "./types";

/** The calls of the last assistant turn that no tool message answers yet. */
export function openCalls(messages: ChatMessage[]): ToolCall[] {
  const at = lastTurnIndex(messages);
  if (at < 0) return [];
  const turn = messages[at] as Extract<ChatMessage, { role: "assistant" }>;
  const answered = new Set(messages.slice(at + 1).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return (turn.toolCalls ?? []).filter((call) => !answered.has(call.id));
}

/** The history with every open call answered "Not run: <reason>.", a valid history to resume from. */
export function closeOpenCalls(messages: ChatMessage[], reason: string): ChatMessage[] {
  const closing = openCalls(messages).map((call): ChatMessage => ({
    role: "tool",
    toolCallId: call.id,
    content: `Not run: ${reason}.`,
    isError: true,
  }));
  return closing.length === 0 ? messages : [...messages, ...closing];
}
