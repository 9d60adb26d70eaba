// Where the person spoke in the middle of a turn, in a message the chat shows as its own: a message
// the run took while it worked that its sender named (a chat client's: `user-message` with the
// caller's own id; one sent without a name, from the console or the API, stays a part of the
// assistant message it went into), or a text that answered an ask (`answered` with the answer's
// `messageId`). Each splits the turn: the assistant message before it ends there, and the next one
// begins with it (the same events chat-marks.ts counts).
import { isCallersMessageId } from "../rules/message-ids";

/** A stored event (with seq) or a live one (text deltas, resets): the fields the mapping reads. */
export type ChatEvent = { type: string; seq?: number; [field: string]: unknown };

export type Split = { messageId: string; kind: "message" | "typed-answer" };

/** The person's message `event` stands for, when it splits the turn. */
export function splitBy(event: ChatEvent): Split | undefined {
  if (typeof event.messageId !== "string") return undefined;
  if (event.type === "user-message" && isCallersMessageId(event.messageId)) return { messageId: event.messageId, kind: "message" };
  if (event.type === "answered") return { messageId: event.messageId, kind: "typed-answer" };
  return undefined;
}
