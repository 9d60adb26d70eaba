// How long a request's text is, as the loop knows it without a pass over its messages: the request
// view counts each message once as the history grows (request-view.ts), and a request built from
// it is told its count here. Kept beside the request, not on it: a request's fields are recorded
// and hashed (src/replay), and this is no part of what was asked. The scripted provider's size
// estimate reads it (src/providers/scripted/request-size.ts). A count holds only for the messages
// it was made for: a request whose list has since changed length or last message has none.
import type { ChatMessage, GenerateRequest } from "../types";

type Known = { chars: number; count: number; last: ChatMessage | undefined };

const known = new WeakMap<GenerateRequest, Known>();

/** `request`'s messages hold `chars` characters of text (each message's textOf, summed). */
export function knowTextChars(request: GenerateRequest, chars: number): void {
  const { messages } = request;
  known.set(request, { chars, count: messages.length, last: messages[messages.length - 1] });
}

/** The count knowTextChars was told for `request`, while its messages are still those it was told for. */
export function knownTextChars(request: GenerateRequest): number | undefined {
  const entry = known.get(request);
  const { messages } = request;
  if (entry === undefined || entry.count !== messages.length || entry.last !== messages[messages.length - 1]) return undefined;
  return entry.chars;
}
