// What a client sends to a run already started: an answer to what it waits on
// (POST /v1/runs/{id}/answers) and a new message (POST /v1/runs/{id}/messages).
import { z } from "@hono/zod-openapi";
import { contentInputSchema } from "../runs/content-schemas";
import { batchResultSchemaOf } from "../tools/toolset-schemas";

export const answerBodySchema = z
  .strictObject({
    callId: z.string().min(1),
    content: contentInputSchema.optional().openapi({ description: "For an ask or a client tool." }),
    approved: z.boolean().optional().openapi({ description: "For an approval." }),
    isError: z.boolean().optional(),
    results: z
      .array(batchResultSchemaOf(contentInputSchema))
      .min(1)
      .optional()
      .openapi({ description: "For a client toolset's batch (callId is the batch's): every action's result, in any order; after a failed one (isError) leave the later ones out." }),
  })
  .openapi("AnswerBody");

export type AnswerInput = z.infer<typeof answerBodySchema>;

/** How a message to a running run goes in (docs/api.md "Messages while a run works"). */
export const messageModeSchema = z.enum(["queue", "interrupt"]).openapi("MessageMode");

export const continueBodySchema = z
  .strictObject({
    content: contentInputSchema,
    maxSteps: z
      .number()
      .int()
      .gte(1)
      .optional()
      .openapi({ description: "Model calls this continuation may make (default: the run's own maxSteps; at most MAX_STEPS_LIMIT). Only a finished run's continue counts it." }),
    mode: messageModeSchema
      .optional()
      .openapi({
        description:
          "For a running run: queue (default) puts the message in the history before the next model call, after the current turn's tool results; " +
          "interrupt aborts the model call in flight (its partial answer is dropped, its reported cost counts) and makes it again with the message. A finished run's continue ignores it.",
      }),
  })
  .openapi("ContinueBody");
