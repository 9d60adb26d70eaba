// Typed final output (`output` in POST /v1/runs): the run gets a finish tool whose input schema is
// `schema`; what the model hands in, checked against it, is the run's `final`. The schema is the
// input of a tool, so it must describe a JSON object; the tool's name follows the providers' rule
// for tool names.
import { z } from "@hono/zod-openapi";
import { DEFAULT_OUTPUT_TOOL } from "../../../loop/tool-calls/output-tool";

/** The tool-name rule both providers keep: 1 to 64 of A–Z a–z 0–9 _ -. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const OBJECT_SCHEMA_MESSAGE = 'Must be a JSON Schema of an object ({ "type": "object", … }): the model hands the output in as a tool\'s input.';

export const outputSchema = z
  .strictObject({
    schema: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === "object", { message: OBJECT_SCHEMA_MESSAGE })
      .openapi({ description: 'JSON Schema (2020-12) of the final output; it must be an object schema ({ "type": "object", … }).' }),
    name: z
      .string()
      .regex(TOOL_NAME_PATTERN, { message: "Must be 1–64 of A–Z a–z 0–9 _ -, as tool names are." })
      .optional()
      .openapi({ description: `The finish tool's name (default ${DEFAULT_OUTPUT_TOOL}); no other tool may have it.` }),
  })
  .openapi("Output");

export type OutputInput = z.infer<typeof outputSchema>;
