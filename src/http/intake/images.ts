// The edge's side of inline images: every content of a request is checked and decoded first (400
// with the path of each bad image). The bytes then travel with the request to the run object,
// which decides whether it takes the request, counts them (RUN_IMAGE_BYTES_LIMIT) and only then
// stores them with the run (src/durable/blobs/take-images.ts), so a request it refuses stores
// nothing, and a run being deleted and an upload never cross.
import type { z } from "@hono/zod-openapi";
import { prepareImages, type ImageUpload, type InputContent, type PreparedImages } from "../../api/images/images";
import type { chatMessageInputSchema } from "../../api/schemas/runs/content-schemas";
import type { BatchResult } from "../../api/types";
import type { ChatMessage, Content } from "../../loop/types";
import { invalidRequest } from "../errors";

export type InputChatMessage = z.infer<typeof chatMessageInputSchema>;

/** Collects the images of several contents, then hands them on or refuses the request. */
export class ImageIntake {
  private readonly prepared: PreparedImages = { content: "", images: [], references: [], issues: [] };

  async content(content: InputContent, path: string): Promise<Content> {
    return (await prepareImages(content, path, this.prepared)).content;
  }

  async messages(messages: readonly InputChatMessage[], path = "messages"): Promise<ChatMessage[]> {
    const out: ChatMessage[] = [];
    for (const [index, message] of messages.entries()) {
      out.push({ ...message, content: await this.content(message.content, `${path}.${index}.content`) });
    }
    return out;
  }

  /** The results of a toolset batch's answer, each content checked like any other. */
  async batchResults(results: readonly { callId: string; content: InputContent; isError?: boolean }[], path: string): Promise<BatchResult[]> {
    const out: BatchResult[] = [];
    for (const [index, result] of results.entries()) out.push({ ...result, content: await this.content(result.content, `${path}.${index}.content`) });
    return out;
  }

  /** The images for the run object, or the 400 for every bad one found. */
  upload(): ImageUpload {
    if (this.prepared.issues.length > 0) throw invalidRequest("Invalid image.", this.prepared.issues);
    return { images: this.prepared.images, references: this.prepared.references };
  }
}
