// Where an event stream resumes: `?after=<seq>` or the Last-Event-ID header, one rule for a run's
// events and a subject's inbox, checked at the edge (the query) and in the object (the header,
// which the edge passes through): a whole number of at most 15 digits, so it is exact as a number.
import { z } from "@hono/zod-openapi";

export const AFTER_PATTERN = /^\d{1,15}$/;
export const AFTER_MESSAGE = "Must be a whole number ≥ 0 (at most 15 digits).";

export const afterQuerySchema = z.string().regex(AFTER_PATTERN, { message: AFTER_MESSAGE }).optional().openapi({ description: "Resume after this seq (default 0: from the start)." });
