// A run's tags: short labels given when it is made (POST /v1/runs `tags`), listed with the run and
// filtered on by GET /v1/runs?tag= and a dataset's selection of runs (docs/evals.md).
import { z } from "@hono/zod-openapi";
import { laterDuplicates } from "../../lib/duplicates";

/** How many tags a run may carry. */
export const TAGS_MAX = 16;
/** A tag: 1–64 letters, digits and `.`, `_`, `-`, `:`, `/`. */
export const TAG_PATTERN = /^[A-Za-z0-9._:/-]{1,64}$/;
const TAG_MESSAGE = "Must be 1–64 letters, digits, or . _ - : /.";

export const tagSchema = z.string().regex(TAG_PATTERN, { message: TAG_MESSAGE }).openapi({ example: "golden" });

export const tagsSchema = z
  .array(tagSchema)
  .max(TAGS_MAX, { message: `At most ${TAGS_MAX} tags.` })
  .superRefine((tags, context) => {
    for (const { index } of laterDuplicates(tags)) context.addIssue({ code: "custom", path: [index], message: `Duplicate tag: ${tags[index]}.` });
  })
  .openapi({ description: `Labels of the run (at most ${TAGS_MAX}, each 1–64 letters, digits, or . _ - : /): listed with it, and chosen by GET /v1/runs?tag= and a dataset's selection (docs/evals.md).` });
