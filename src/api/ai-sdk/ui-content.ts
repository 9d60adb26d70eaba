// A UIMessage's parts as Ratchet content (input form, as POST /v1/runs/{id}/messages takes it):
// text parts as text, image file parts given as data URLs as inline images; and back, a stored
// message's content as UI parts (images by hash have no URL a browser could load: left out).
import { IMAGE_MEDIA_TYPES } from "../images/image-types";
import type { Content } from "../../loop/types";
import type { UIPart } from "./ui-chunks";

export type ContentPartInput = { type: "text"; text: string } | { type: "image"; mimeType: string; data: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** The content of a message's parts; `undefined` when a part cannot be content (the issue names its index). */
export function contentOfParts(parts: readonly Record<string, unknown>[]): { content: string | ContentPartInput[] } | { issue: { path: string; message: string } } {
  const out: ContentPartInput[] = [];
  for (const [index, part] of parts.entries()) {
    if (part.type === "text" && typeof part.text === "string") out.push({ type: "text", text: part.text });
    else if (part.type === "file") {
      const match = typeof part.url === "string" ? DATA_URL.exec(part.url) : null;
      const mediaType = String(part.mediaType ?? match?.[1] ?? "");
      if (match === null || !(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
        return { issue: { path: `messages.parts.${index}`, message: `A file part must be an image (${IMAGE_MEDIA_TYPES.join(", ")}) given as a base64 data URL.` } };
      }
      out.push({ type: "image", mimeType: mediaType, data: match[2]! });
    }
    // Other parts (step-start, data-*, reasoning, sources) carry nothing the run takes.
  }
  if (out.length === 0) return { issue: { path: "messages.parts", message: "The message has no text or image part." } };
  const only = out[0]!;
  return { content: out.length === 1 && only.type === "text" ? only.text : out };
}

/** A stored message's content as UI parts. */
export function partsOfContent(content: Content): UIPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.flatMap((part): UIPart[] => (part.type === "text" ? [{ type: "text", text: part.text }] : []));
}
