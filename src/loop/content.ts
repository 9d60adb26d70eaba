import type { Content, ContentPart, TextPart } from "./types";

export function toParts(content: Content): ContentPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * The text of a message's content, text parts joined by newlines. Read once a turn by the loop
 * detectors (same-text): no text part or one (most turns) makes no list, one is that very string;
 * several are joined flat (a template would make a rope, which JSON.stringify writes slowly).
 */
export function textOf(content: Content): string {
  if (typeof content === "string") return content;
  let text = "";
  let parts = 0;
  for (const part of content) {
    if (part.type !== "text") continue;
    text = part.text;
    parts++;
  }
  if (parts <= 1) return text;
  return content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** textOf(content).length, without joining the parts. */
export function textLength(content: Content): number {
  if (typeof content === "string") return content.length;
  let chars = 0;
  let parts = 0;
  for (const part of content) {
    if (part.type !== "text") continue;
    chars += part.text.length;
    parts++;
  }
  return parts === 0 ? 0 : chars + parts - 1;
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
