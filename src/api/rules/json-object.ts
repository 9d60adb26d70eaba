import { z } from "@hono/zod-openapi";

/** Any JSON object: a tool's input schema, a run's metadata. */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
