// What a client sends to a run already started: an answer to what it waits on
// (POST /v1/runs/{id}/answers) and a new message (POST /v1/runs/{id}/messages).
import { z } from "@hono/zod-openapi";
import { contentInputSchema } from "../runs/content-schemas";
import { batchResultSchemaOf } from "../tools/toolset-schemas";
import { isCallersMessageId, RUN_MESSAGE_ID_PREFIX } from "../../rules/message-ids";

/** The caller's own id for a person's message (a chat client's message id): told back, never made up (src/api/rules/message-ids.ts). */
export const personMessageIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:@-]{1,128}$/, { message: "1 to 128 of A-Z a-z 0-9 _ . : @ -." })
  .refine(isCallersMessageId, { message: `Ids starting with ${RUN_MESSAGE_ID_PREFIX} are the run's own.` })
  .openapi({ description: `Your own id for the person's message (a chat client's message id), 1 to 128 of A-Z a-z 0-9 _ . : @ -, not starting with ${RUN_MESSAGE_ID_PREFIX} (the run's own ids).`, example: "m-7f3a" });

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
    messageId: personMessageIdSchema
      .optional()
      .openapi({ description: "When the answer is a message the person typed (a chat's text answering an ask): its id, told back in the `answered` event; the chat's history shows the answer as that message." }),
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
    messageId: personMessageIdSchema
      .optional()
      .openapi({ description: "The message's id (a chat client's own): the `user-message` event's messageId and the chat's history keep it. Default: one the run makes (msg_…). An id this run was sent before is 409." }),
  })
  .openapi("ContinueBody");
