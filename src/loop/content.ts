import type { Content, ContentPart } from "./types";

export function toParts(content: Content): ContentPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * The text of a message's content, text parts joined by newlines. Read once a turn by the loop
 * detectors (same-text), so it makes no list: one text part is that very string.
 */
export function textOf(content: Content): string {
  if (typeof content === "string") return content;
  let text: string | undefined;
  for (const part of content) if (part.type === "text") text = text === undefined ? part.text : `${text}\n${part.text}`;
  return text ?? "";
}

export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

const SUMMARY_LENGTH = 200;

/** A short one-line description of a tool result, for progress views. */
export function summarize(content: Content): string {
  const parts = toParts(content).map((part) =>
    part.type === "text" ? part.text : `[image ${part.path ?? part.hash}]`,
  );
  const line = parts.join(" ").replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line;
}
