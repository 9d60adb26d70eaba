// AG-UI 1.0's RunAgentInput as this service reads it (what @ag-ui/client's HttpAgent POSTs): the
// fields it acts on are checked, any other field is let through untouched, as the protocol asks of
// an agent that does not know it.
import { z } from "@hono/zod-openapi";

const textPartSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const anyPartSchema = z.looseObject({ type: z.string() });

const userMessageSchema = z.looseObject({
  id: z.string().min(1),
  role: z.literal("user"),
  content: z.union([z.string(), z.array(z.union([textPartSchema, anyPartSchema]))]),
});
const assistantMessageSchema = z.looseObject({ id: z.string().min(1), role: z.literal("assistant"), content: z.string().nullish() });
const toolMessageSchema = z.looseObject({ id: z.string().min(1), role: z.literal("tool"), toolCallId: z.string().min(1), content: z.string(), error: z.string().optional() });
const otherMessageSchema = z.looseObject({ id: z.string().min(1), role: z.enum(["developer", "system", "activity", "reasoning"]) });

export const agUiMessageSchema = z.discriminatedUnion("role", [userMessageSchema, assistantMessageSchema, toolMessageSchema, otherMessageSchema]);

export const agUiToolSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "1 to 64 of a-z A-Z 0-9 _ -"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

export const resumeEntrySchema = z.looseObject({
  interruptId: z.string().min(1),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
});

export const runAgentInputSchema = z
  .looseObject({
    threadId: z.string().min(1).max(255),
    runId: z.string().min(1).max(255),
    messages: z.array(agUiMessageSchema),
    tools: z.array(agUiToolSchema).optional(),
    context: z.array(z.looseObject({ description: z.string(), value: z.string() })).optional(),
    forwardedProps: z.unknown().optional(),
    resume: z.array(resumeEntrySchema).optional(),
  })
  .openapi("RunAgentInput");

export type RunAgentInput = z.infer<typeof runAgentInputSchema>;
export type AgUiMessage = z.infer<typeof agUiMessageSchema>;
export type ResumeEntry = z.infer<typeof resumeEntrySchema>;

/** A user message's text: its string, or its text parts joined (other parts are not read). */
export function userText(message: Extract<AgUiMessage, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}
