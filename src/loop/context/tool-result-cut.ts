// Tool results too long for the context: in requests, a tool result longer than
// maxToolResultTokens is cut to that length with a note that says how much was dropped. The
// history keeps the whole result (the journal, result.messages, GET /messages). The cut form is a
// pure function of the result, so every later request sends the same bytes and can be cached.
import type { ChatMessage, ContentPart } from "../types";

/** maxToolResultTokens when the run sets none: a tool result may fill about a tenth of a 200,000-token window. */
export const DEFAULT_MAX_TOOL_RESULT_TOKENS = 20_000;
/** The estimate used for the cut: about 4 characters a token. */
export const CHARS_PER_TOKEN = 4;

export function cutNote(droppedChars: number): string {
  const tokens = Math.ceil(droppedChars / CHARS_PER_TOKEN);
  return `[… ${droppedChars.toLocaleString("en-US")} more characters (about ${tokens.toLocaleString("en-US")} tokens) of this tool result were cut to fit the context; the run's history keeps the whole result.]`;
}

/** The text cut to `maxChars`: its head, then the note (a cut never ends inside a surrogate pair). */
function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}\n${cutNote(text.length - end)}`;
}

function cutParts(parts: ContentPart[], maxChars: number): ContentPart[] {
  let left = maxChars;
  return parts.map((part) => {
    if (part.type !== "text") return part;
    const cut = cutText(part.text, Math.max(0, left));
    left -= part.text.length;
    return cut === part.text ? part : { ...part, text: cut };
  });
}

/** One message's request form: a tool result past `maxTokens` cut, any other message (or a short result) itself. */
export function cutLongToolResult(message: ChatMessage, maxTokens: number | undefined = DEFAULT_MAX_TOOL_RESULT_TOKENS): ChatMessage {
  if (message.role !== "tool") return message;
  const maxChars = maxTokens * CHARS_PER_TOKEN;
  const content = typeof message.content === "string" ? cutText(message.content, maxChars) : cutParts(message.content, maxChars);
  if (content === message.content || (Array.isArray(content) && Array.isArray(message.content) && content.every((part, i) => part === (message.content as ContentPart[])[i]))) {
    return message;
  }
  return { ...message, content };
}

/** The request form: tool results past `maxTokens` cut, other messages passed through unchanged. */
export function cutLongToolResults(messages: ChatMessage[], maxTokens?: number): ChatMessage[] {
  let changed = false;
  const out = messages.map((message) => {
    const cut = cutLongToolResult(message, maxTokens);
    if (cut !== message) changed = true;
    return cut;
  });
  return changed ? out : messages;
}
