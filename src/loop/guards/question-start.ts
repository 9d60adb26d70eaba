// Where the question being answered began. A run that is continued for days is a chat of many
// questions; the guards that watch one question (the repeated-call count, the doom-loop flag, "was
// there tool work before this answer?") count from the user message that asked it: the first one,
// or the one a continue added. An answer to an ask or an approval is a tool message, so it stays
// part of the question it answers.
import type { ChatMessage } from "../types";

/** Index of the newest user message of `messages`: where the current question began (0 without one). */
export function questionStart(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return 0;
}
