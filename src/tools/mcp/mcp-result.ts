// An MCP tool result as the model sees it (docs/mcp.md "Results"): text stays text; images become
// the run's blobs (stored by hash, like images in a request) and image parts; structured content
// is the call's value (a finish tool's `final`) and, when the server sent no text, its JSON as
// text; `isError` is an error result. What the model cannot take (audio, binary resources) is
// named in a line of text instead, so nothing is dropped without a word.
import { IMAGE_MEDIA_TYPES, prepareImages, type ImageMediaType, type PendingImage } from "../../api/images/images";
import type { ContentPart, ToolOutput } from "../../loop/types";
import type { CallToolResult } from "./mcp-connections";

/** Stores images of the run (by hash); the parts that name them are then valid in its history. */
export type StoreImages = (images: PendingImage[]) => Promise<void>;

type Block = CallToolResult["content"][number];

const isImageType = (mimeType: string): mimeType is ImageMediaType => (IMAGE_MEDIA_TYPES as readonly string[]).includes(mimeType);

async function imagePart(data: string, mimeType: string, label: string, pending: PendingImage[]): Promise<ContentPart> {
  if (!isImageType(mimeType)) return { type: "text", text: `[${label}: ${mimeType} is not an image type the model takes (JPEG, PNG, GIF, WebP)]` };
  const prepared = await prepareImages([{ type: "image", mimeType, data }], "image");
  if (prepared.issues.length > 0) return { type: "text", text: `[${label} left out: ${prepared.issues[0]!.message}]` };
  pending.push(...prepared.images);
  return (prepared.content as ContentPart[])[0]!;
}

async function partOf(block: Block, pending: PendingImage[]): Promise<ContentPart> {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return imagePart(block.data, block.mimeType, "image", pending);
    case "audio":
      return { type: "text", text: `[audio (${block.mimeType}) left out: the model does not take audio]` };
    case "resource_link":
      return { type: "text", text: `[resource ${block.name}: ${block.uri}${block.description === undefined ? "" : ` — ${block.description}`}]` };
    case "resource": {
      const { resource } = block;
      if ("text" in resource) return { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` };
      if (resource.mimeType !== undefined && isImageType(resource.mimeType)) return imagePart(resource.blob, resource.mimeType, `resource ${resource.uri}`, pending);
      return { type: "text", text: `[resource ${resource.uri} (${resource.mimeType ?? "binary"}) left out: the model takes text and images only]` };
    }
  }
}

export async function outputOfMcpResult(result: CallToolResult, storeImages: StoreImages): Promise<ToolOutput> {
  const pending: PendingImage[] = [];
  const parts: ContentPart[] = [];
  for (const block of result.content ?? []) {
    const part = await partOf(block, pending);
    // Providers refuse empty text blocks.
    if (part.type !== "text" || part.text !== "") parts.push(part);
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !parts.some((part) => part.type === "text")) parts.push({ type: "text", text: JSON.stringify(structured) });
  // Stored before the result is: a crash between leaves an unused blob, never a part without bytes.
  if (pending.length > 0) await storeImages(pending);
  const only = parts[0];
  const content = parts.length === 0 ? "(no content)" : parts.length === 1 && only!.type === "text" ? only!.text : parts;
  const output: ToolOutput = { content };
  if (structured !== undefined) output.value = structured;
  if (result.isError === true) output.isError = true;
  return output;
}
