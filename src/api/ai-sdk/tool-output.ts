// A tool's whole result (the run's history keeps it: the `tool-result` event carries only a
// 200-character summary) as the AI SDK's tool output: a text result is its text, content parts
// with an image stay parts.
import type { Content, ToolMessage } from "../../loop/types";

export function contentText(content: Content): string {
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The output a client gets for a tool's result: the text, or the parts when they hold more than text. */
export function toolOutput(content: Content): unknown {
  if (typeof content === "string") return content;
  return content.every((part) => part.type === "text") ? contentText(content) : content.map(({ type, ...rest }) => ({ type, ...rest }));
}

/**
 * What the person answered an ask or a client tool with, as its tool part's output: the chat sends
 * an output that is not a string as its JSON text, which comes back as the value it was (a JSON
 * object or array); any other text as it is.
 */
export function answerOutput(content: Content): unknown {
  const output = toolOutput(content);
  if (typeof output !== "string" || !/^\s*[[{]/.test(output)) return output;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}

/** The tool results of a history by call id. */
export function toolResultsOf(messages: readonly { role: string }[]): Map<string, ToolMessage> {
  const results = new Map<string, ToolMessage>();
  for (const message of messages) if (message.role === "tool") results.set((message as ToolMessage).toolCallId, message as ToolMessage);
  return results;
}
