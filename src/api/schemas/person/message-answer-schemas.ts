// The answer of POST /v1/runs/{id}/messages: the run's view, and on a running run the message as it
// was stored (its id and the mode it was taken with: an interrupt past MAX_INTERRUPTS_PER_STEP is
// queued). Kept apart from the run view's own schema, which every other route answers.
import { z } from "@hono/zod-openapi";
import { messageModeSchema } from "./answer-schemas";
import { runViewSchema } from "../runs/run-view-schemas";

export const messageAnswerSchema = runViewSchema
  .extend({
    message: z
      .object({
        id: z.string().openapi({ description: "The message's id: the messageId of the `user-message` event that marks where it went." }),
        mode: messageModeSchema.openapi({
          description: "How the run takes it: interrupt, or queue (asked for, or an interrupt past MAX_INTERRUPTS_PER_STEP interrupts of the model call in flight, which then waits for that call to end).",
        }),
      })
      .optional()
      .openapi({ description: "On a running run: the message as stored. Absent on a continue of a finished run." }),
  })
  .openapi("MessageAnswer");
