// The AI SDK chat's request (POST /v1/ai-sdk/{v}/chat): what the AI SDK's DefaultChatTransport
// sends, `{ id, messages, trigger, messageId }` plus whatever the app's `body` option adds (kept
// loose for that). Only the last message is read; the whole list is accepted too.
import { z } from "@hono/zod-openapi";

const uiPartSchema = z.looseObject({ type: z.string() }).openapi({ description: "A UIMessage part: text, file (an image as a base64 data URL), a tool part, … (the AI SDK's shape)." });

export const uiMessageInputSchema = z
  .looseObject({
    id: z.string().optional(),
    role: z.enum(["user", "assistant", "system"]),
    parts: z.array(uiPartSchema),
  })
  .openapi("ChatUIMessage");

export const chatRequestSchema = z
  .looseObject({
    id: z.string().min(1).openapi({ description: "The chat's id: the run's id." }),
    messages: z.array(uiMessageInputSchema).min(1).openapi({ description: "The chat's messages; only the last one is read (the client package sends only that one)." }),
    trigger: z.enum(["submit-message", "regenerate-message"]).optional().openapi({ description: "regenerate-message retries a failed run." }),
    messageId: z.string().optional(),
  })
  .openapi("ChatRequest");

export type ChatRequest = z.infer<typeof chatRequestSchema>;
