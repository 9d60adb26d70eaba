// POST /v1/runs/{id}/compact: compaction on demand, with instructions for that one compaction.
import { z } from "@hono/zod-openapi";

export const COMPACT_INSTRUCTIONS_MAX = 10_000;

export const compactBodySchema = z
  .strictObject({
    instructions: z
      .string()
      .max(COMPACT_INSTRUCTIONS_MAX)
      .optional()
      .openapi({ description: "Instructions for this compaction's summary, instead of the run's compaction.instructions (at most 10,000 characters)." }),
  })
  .openapi("CompactBody");

export type CompactBody = z.infer<typeof compactBodySchema>;
