// A person's message's id: the caller's own (a chat client names its messages, and gets the same
// ids back after a reload) or, when the caller gave none, one the run makes, `msg_…`. The prefix is
// the run's: a caller's id may not start with it, so the two never meet, and the chat can tell a
// message a client named (shown as a message of its own) from one sent without a name (the console,
// the API: shown as a part of the assistant message it went into).
export const RUN_MESSAGE_ID_PREFIX = "msg_";

/** Whether `id` is a caller's own (not one the run made). */
export function isCallersMessageId(id: string): boolean {
  return !id.startsWith(RUN_MESSAGE_ID_PREFIX);
}
