// A point in time as a client writes it in a query or a body: a date (2026-05-01, midnight UTC) or
// an RFC 3339 date-time (2026-05-01T12:00:00Z, 2026-05-01T14:00:00+02:00). Stored times are ISO
// strings of one form (toISOString), which compare as text: isoTime gives a client's time that form.
import { z } from "@hono/zod-openapi";

const FORM = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const MESSAGE = "Must be a date (2026-05-01) or an RFC 3339 date-time (2026-05-01T12:00:00Z).";

export const isoTimeSchema = z
  .string()
  .regex(FORM, { message: MESSAGE })
  .refine((text) => !Number.isNaN(Date.parse(text)), { message: MESSAGE })
  .openapi({ example: "2026-05-01T00:00:00Z" });

/** `text` (checked by isoTimeSchema) as toISOString writes it. */
export function isoTime(text: string): string {
  return new Date(Date.parse(text)).toISOString();
}
