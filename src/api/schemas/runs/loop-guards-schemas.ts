// A run's (or an agent template's) loop guards: for each loop detector, the count at which it
// warns the model, asks the person or stops the run (0: off), over the defaults
// (src/loop/guards/loops/loop-policy.ts; docs/guardrails.md "Loop guards").
import { z } from "@hono/zod-openapi";

/** A level's count: a whole number from 2 (a call made twice), or 0 to turn the level off. */
const levelSchema = z
  .number()
  .int()
  .gte(0)
  .lte(10_000)
  .refine((count) => count === 0 || count >= 2, { message: "A count of 2 or more (a first time is no loop), or 0 to turn this level off." });

const levelsSchema = (what: string) =>
  z
    .strictObject({
      warn: levelSchema.optional().openapi({ description: "At this count the model gets a note (the verdict is journaled)." }),
      ask: levelSchema.optional().openapi({ description: "At this count the run waits on an ask to the person: \"go on\", \"stop\", or what to tell the model." }),
      stop: levelSchema.optional().openapi({ description: "At this count the run ends with stoppedBy \"loop\"." }),
    })
    .openapi({ description: what });

export const loopGuardsSchema = z
  .strictObject({
    sameCall: levelsSchema("The same tool call (name and canonical input) within one question, whatever its results. Default: warn 3.").optional(),
    sameText: levelsSchema("The same model text (normalised) steps in a row with no new tool result. Default: warn 3, stop 5.").optional(),
    alternation: levelsSchema("Two tool calls taking turns (A-B-A-B is 4). Default: warn 4, stop 8.").optional(),
    noProgress: levelsSchema("Steps in a row whose tool results the question had all seen before. Default: warn 4, ask 8.").optional(),
  })
  .openapi("LoopGuards", { description: "Loop detectors and the count at which each warns, asks or stops (0: off), over the defaults (docs/guardrails.md)." });
