// WebSocket frames a client may send on a run's socket.
import { z } from "@hono/zod-openapi";
import { contentInputSchema } from "../runs/content-schemas";
import { issuesOf, type ErrorDetail } from "../error-schemas";
import { batchResultSchemaOf } from "../tools/toolset-schemas";

export const clientFrameSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("answer"),
    callId: z.string().min(1),
    content: contentInputSchema.optional(),
    approved: z.boolean().optional(),
    isError: z.boolean().optional(),
    results: z.array(batchResultSchemaOf(contentInputSchema)).min(1).optional(),
  }),
  z.strictObject({ type: z.literal("cancel") }),
  z.strictObject({ type: z.literal("ping") }),
]);

export type ClientFrame = z.infer<typeof clientFrameSchema>;

export type ParsedFrame = { ok: true; frame: ClientFrame } | { ok: false; error: ErrorDetail };

/** A text frame from a client: a known frame, or the error to send back (the socket stays open). */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: { code: "invalid-request", message: "The frame is not JSON." } };
  }
  const parsed = clientFrameSchema.safeParse(value);
  if (parsed.success) return { ok: true, frame: parsed.data };
  return { ok: false, error: { code: "invalid-request", message: "Invalid frame.", issues: issuesOf(parsed.error) } };
}
