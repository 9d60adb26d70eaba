// A subject, an app's user id: the owner of an inbox, of user tokens and of schedules.
import { z } from "@hono/zod-openapi";

/** A subject: an app's user id, 1–128 printable ASCII characters. */
export const SUBJECT_PATTERN = /^[\x20-\x7e]{1,128}$/;
export const subjectSchema = z.string().regex(SUBJECT_PATTERN, { message: "Must be 1–128 printable ASCII characters." });
