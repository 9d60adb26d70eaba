// The body of POST /v1/runs/:id/fork: the model step to fork at, the user's turn to add after it,
// and the fields of the source's request the fork replaces (the prefix stays as it was recorded).
// The fields are the create body's own, checked the same way.
import { z } from "@hono/zod-openapi";
import { laterDuplicates } from "../../../lib/duplicates";
import { chatMessageInputSchema } from "./content-schemas";
import { createRunBodySchema } from "./create-run-schemas";
import { toolNameOf, toolRefSchema } from "../tools/tool-schemas";

const run = createRunBodySchema.shape;

export const forkBodySchema = z
  .strictObject({
    atStep: z
      .number()
      .int()
      .gte(0)
      .openapi({ description: "The source's model step (counted over the whole run from 1) whose turn, with its tool results, ends the fork's prefix; 0: before its first model call (the fork begins with the source's given messages)." }),
    messages: z
      .array(chatMessageInputSchema)
      .min(1, { message: "At least one message, or leave `messages` out." })
      .optional()
      .openapi({ description: "User messages added after the prefix, as the user's turn (role user only)." }),
    system: run.system,
    provider: run.provider,
    model: run.model,
    // A fork's tools are stored kinds only: an agent tool naming a stored agent is for a new run (docs/agents.md).
    tools: z.array(toolRefSchema).optional(),
    budget: run.budget.openapi({ description: "The fork's own budget: the prefix's cost (inheritedUsd) is not charged to it. Default: the source's." }),
    maxSteps: run.maxSteps.openapi({ description: "Model calls the fork may make after atStep. Default: as many as the source had left there." }),
    script: run.script.openapi({
      description: 'A scripted source\'s fork: the turns the fork plays after atStep (its first turn is the fork\'s first live model call). The deployment token where SCRIPTED_PROVIDER=on, or any token in local development.',
    }),
  })
  .superRefine((body, context) => {
    (body.messages ?? []).forEach((message, index) => {
      if (message.role !== "user") context.addIssue({ code: "custom", path: ["messages", index, "role"], message: "A fork's added messages are the user's turn: role user only." });
    });
    const names = (body.tools ?? []).map(toolNameOf);
    for (const { index } of laterDuplicates(names)) context.addIssue({ code: "custom", path: ["tools", index], message: `Duplicate tool name: ${names[index]}.` });
  })
  .openapi("ForkBody");

export type ForkInput = z.infer<typeof forkBodySchema>;

export const forkedFromSchema = z
  .object({
    runId: z.string().openapi({ description: "The run this one was forked from." }),
    step: z.number().int().openapi({ description: "The source's model step the fork's prefix ends with." }),
  })
  .openapi("ForkedFrom");
