// Results of async HTTP tools (POST /v1/runs/{id}/calls/{callKey}/result, by the tool server).
import { z } from "@hono/zod-openapi";

/** Content as a tool answers it: text, or images the deployment stores already (by hash). */
const toolContentSchema = z.union([
  z.string(),
  z.array(
    z.union([
      z.strictObject({ type: z.literal("text"), text: z.string() }),
      z.strictObject({ type: z.literal("image"), mimeType: z.string().min(1), hash: z.string().min(1), path: z.string().optional() }),
    ]),
  ),
]);

export const callResultBodySchema = z
  .strictObject({
    content: toolContentSchema.openapi({ description: "What the model sees: text, or a list of text and image parts." }),
    isError: z.boolean().optional().openapi({ description: "The job failed: the model sees `content` as the error." }),
    costUsd: z.number().nonnegative().optional().openapi({ description: "What the job cost; it counts towards the run's budget." }),
  })
  .openapi("CallResult");

export type CallResultInput = z.infer<typeof callResultBodySchema>;

export const callResultAcceptedSchema = z
  .object({ callId: z.string(), answeredAt: z.string().openapi({ description: "When the first result arrived." }) })
  .openapi("CallResultAccepted");
