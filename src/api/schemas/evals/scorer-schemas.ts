// The scorers of an experiment, as data (docs/evals.md, "Scorers"): each a strict object named by
// its `type`. What only the deployment can judge (a regex RE2 cannot run, a judge's provider and
// price) is checked at the edge when the experiment is made (src/http/evals/experiment-checks.ts).
import { z } from "@hono/zod-openapi";
import { laterDuplicates } from "../../../lib/duplicates";
import { scriptSchema } from "../../../providers/scripted/scripted";
import { jsonObjectSchema } from "../../rules/json-object";

/** The most scorers an experiment has. */
export const SCORERS_MAX = 20;

const name = z.string().min(1).max(64).optional().openapi({ description: "The label of its scores (default: its type, with the tool for tool scorers). Unique within the experiment." });

export const scorerSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("exact"), name, expected: z.string().max(65_536).optional().openapi({ description: "Default: the case's reference finalText." }), ignoreCase: z.boolean().optional(), trim: z.boolean().optional().openapi({ description: "Default true." }) }),
    z.strictObject({ type: z.literal("contains"), name, text: z.union([z.string().min(1).max(4_096), z.array(z.string().min(1).max(4_096)).min(1).max(50)]), ignoreCase: z.boolean().optional() }),
    z.strictObject({ type: z.literal("regex"), name, pattern: z.string().min(1).max(1_024).openapi({ description: "ECMAScript syntax, run on RE2 (no lookaround, no backreferences)." }), ignoreCase: z.boolean().optional() }),
    z.strictObject({ type: z.literal("json-schema"), name, schema: jsonObjectSchema.openapi({ description: "A JSON Schema the typed output must be valid against." }) }),
    z.strictObject({ type: z.literal("fields"), name, expected: jsonObjectSchema.optional().openapi({ description: "The fields the typed output must hold, equal (default: the case's reference output)." }) }),
    z.strictObject({ type: z.literal("tool-called"), name, tool: z.string().min(1).max(128), input: jsonObjectSchema.optional().openapi({ description: "Fields the call's input must hold, equal." }) }),
    z.strictObject({ type: z.literal("tool-not-called"), name, tool: z.string().min(1).max(128) }),
    z.strictObject({ type: z.literal("cost"), name, maxUsd: z.number().gte(0) }),
    z.strictObject({ type: z.literal("steps"), name, max: z.number().int().gte(0) }),
    z.strictObject({
      type: z.literal("rubric"),
      name,
      rubric: z.string().min(1).max(16_384).openapi({ description: "What a good answer is: the judge reads it with the case's input, the run's answer and the reference." }),
      provider: z.enum(["anthropic", "openai", "scripted"]).optional().openapi({ description: "The judge's provider: default as a run's." }),
      model: z.string().min(1).max(256).optional(),
      maxUsd: z.number().gt(0).lte(10).optional().openapi({ description: "The most one judge call may cost, held against the experiment's budget before it is made. Default 0.05." }),
      script: scriptSchema.optional().openapi({ description: 'For provider "scripted": the judge\'s answer (its first turn), where SCRIPTED_PROVIDER=on.' }),
    }),
  ])
  .openapi("Scorer");

export const scorersSchema = z
  .array(scorerSchema)
  .min(1, { message: "At least one scorer." })
  .max(SCORERS_MAX, { message: `At most ${SCORERS_MAX} scorers.` })
  .superRefine((scorers, context) => {
    const names = scorers.map((scorer) => scorer.name ?? (scorer.type === "tool-called" || scorer.type === "tool-not-called" ? `${scorer.type}:${scorer.tool}` : scorer.type));
    for (const { index } of laterDuplicates(names)) context.addIssue({ code: "custom", path: [index, "name"], message: `Another scorer is labelled ${names[index]}: give each a name of its own.` });
  });

export const scoreSchema = z
  .object({ scorer: z.string(), score: z.number().nullable().openapi({ description: "0..1, or null where the scorer had nothing to compare with." }), reason: z.string() })
  .openapi("Score");
