// The edge's side of inline images: every content of a request is checked first (400 with the
// path of each bad image), and only then are the bytes stored. See src/api/images.ts.
import type { z } from "@hono/zod-openapi";
import { prepareImages, putBlobs, type InputContent, type PendingBlob } from "../api/images";
import type { chatMessageInputSchema, Issue } from "../api/schemas";
import type { ChatMessage, Content } from "../loop/types";
import { invalidRequest } from "./errors";

export type InputChatMessage = z.infer<typeof chatMessageInputSchema>;

/** Collects the images of several contents, then stores them all or refuses the request. */
export class ImageIntake {
  private readonly blobs: PendingBlob[] = [];
  private readonly issues: Issue[] = [];

  async content(content: InputContent, path: string): Promise<Content> {
    const prepared = await prepareImages(content, path);
    this.blobs.push(...prepared.blobs);
    this.issues.push(...prepared.issues);
    return prepared.content;
  }

  async messages(messages: readonly InputChatMessage[], path = "messages"): Promise<ChatMessage[]> {
    const out: ChatMessage[] = [];
    for (const [index, message] of messages.entries()) {
      out.push({ ...message, content: await this.content(message.content, `${path}.${index}.content`) });
    }
    return out;
  }

  /** Throws the 400 for every bad image found, or stores every image. */
  async commit(bucket: R2Bucket): Promise<void> {
    if (this.issues.length > 0) throw invalidRequest("Invalid image.", this.issues);
    await putBlobs(bucket, this.blobs);
  }
}
