// Content and chat messages as a client sends them (images inline or by hash) and as the service
// answers them (images by hash only), with the tool calls an assistant message holds.
import { z } from "@hono/zod-openapi";
import { IMAGE_MEDIA_TYPES } from "../../images/image-types";

const textPartSchema = z
  .strictObject({
    type: z.literal("text"),
    text: z.string(),
    cache: z.literal(true).optional().openapi({ description: "Mark a prompt-cache breakpoint after this part." }),
  })
  .openapi("TextPart");

/**
 * An image as a client sends it: inline bytes (`data`, base64) or a reference to bytes stored
 * before (`hash`). With `data`, `hash` may be left out and is then computed by the server.
 */
const imagePartInputSchema = z
  .strictObject({
    type: z.literal("image"),
    mimeType: z.enum(IMAGE_MEDIA_TYPES).openapi({ description: "JPEG, PNG, GIF or WebP; the bytes must be of this type." }),
    hash: z.string().min(1).optional().openapi({ description: "SHA-256 (hex) of the bytes." }),
    path: z.string().optional(),
    data: z.string().optional().openapi({ description: "The bytes, base64; on input only." }),
  })
  .refine((part) => part.hash !== undefined || part.data !== undefined, {
    message: "An image needs `data` (base64 bytes) or the `hash` of stored bytes.",
    path: ["hash"],
  })
  .openapi("ImagePartInput");

/** An image as the service stores and answers it: always by hash, never inline. */
const imagePartSchema = z
  .object({ type: z.literal("image"), mimeType: z.string(), hash: z.string(), path: z.string().optional() })
  .openapi("ImagePart");

export const contentPartInputSchema = z.union([textPartSchema, imagePartInputSchema]);
export const contentPartSchema = z.union([textPartSchema, imagePartSchema]).openapi("ContentPart");

export const contentInputSchema = z.union([z.string(), z.array(contentPartInputSchema)]).openapi("ContentInput");
export const contentSchema = z.union([z.string(), z.array(contentPartSchema)]).openapi("Content");

export const toolCallSchema = z
  .strictObject({
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.unknown(),
    toolset: z.string().min(1).optional().openapi({ description: "For an action of a provider-native toolset: the toolset (`name` is the action)." }),
  })
  .openapi("ToolCall");

function chatMessageSchemaOf<C extends z.ZodType>(content: C) {
  return z.discriminatedUnion("role", [
    z.strictObject({ role: z.literal("user"), content }),
    z.strictObject({
      role: z.literal("assistant"),
      content,
      toolCalls: z.array(toolCallSchema).optional(),
      // Kept so that GET …/messages round-trips into a new run (thinking blocks with signatures).
      providerBlocks: z.array(z.unknown()).optional(),
    }),
    z.strictObject({ role: z.literal("tool"), toolCallId: z.string().min(1), content, isError: z.boolean().optional() }),
  ]);
}

export const chatMessageInputSchema = chatMessageSchemaOf(contentInputSchema).openapi("ChatMessageInput");
export const chatMessageSchema = chatMessageSchemaOf(contentSchema).openapi("ChatMessage");
