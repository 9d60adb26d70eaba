// The routes of /v1/inbox as OpenAPI route configs (paths relative to the /v1/inbox mount).
import { createRoute, z } from "@hono/zod-openapi";
import { ticketSchema } from "../../../api/schemas/runs/run-view-schemas";
import { subjectSchema } from "../../../api/rules/subject";
import { requireSubject } from "../../auth/auth";
import { errors, json } from "./run-routes";
import { afterQuerySchema } from "../../../api/rules/event-cursor";

const subjectQuery = subjectSchema.optional().openapi({ description: "Deployment token: whose inbox (required). User token: its own, if given." });

export const inboxTicketRoute = createRoute({
  method: "post",
  path: "/tickets",
  summary: "A one-time ticket to open the inbox stream without an Authorization header (browsers)",
  middleware: [requireSubject()] as const,
  request: { query: z.strictObject({ subject: subjectQuery }) },
  responses: { 201: json(ticketSchema, "Good for one connection to the inbox stream, within a minute."), ...errors(400, 401, 403, 429) },
});

export const inboxEventsRoute = createRoute({
  method: "get",
  path: "/events",
  summary: "One subject's inbox: every change of its runs (WebSocket, Upgrade: websocket; or SSE, Accept: text/event-stream)",
  description:
    "Stored inbox events with seq > after, in order, then live ones: run-started, run-waiting, run-answered, run-resumed, " +
    'run-ended, run-deleted, each with the run\'s summary. The socket answers {"type":"ping"} with {"type":"pong"}. ' +
    "SSE: id = seq, Last-Event-ID honoured. Browsers send a one-time `?ticket=` (POST /v1/inbox/tickets) instead of the Authorization header.",
  middleware: [requireSubject({ ticket: true })] as const,
  request: {
    query: z.strictObject({
      after: afterQuerySchema,
      ticket: z.string().optional().openapi({ description: "A one-time ticket, for clients that cannot set headers." }),
      subject: subjectQuery,
    }),
  },
  responses: {
    101: { description: "WebSocket: one JSON text frame per inbox event." },
    200: { description: "SSE stream of the same events.", content: { "text/event-stream": { schema: z.string() } } },
    ...errors(400, 401, 403, 410, 429),
  },
});
