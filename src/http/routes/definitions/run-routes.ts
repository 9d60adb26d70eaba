// The routes of /v1/runs as OpenAPI route configs: the same objects validate requests and write
// the OpenAPI document. Paths are relative to the /v1/runs mount.
import { createRoute, z } from "@hono/zod-openapi";
import { answerBodySchema, continueBodySchema } from "../../../api/schemas/person/answer-schemas";
import { messageAnswerSchema } from "../../../api/schemas/person/message-answer-schemas";
import { callResultAcceptedSchema, callResultBodySchema } from "../../../api/schemas/tools/call-result-schemas";
import { agentNameSchema, runRequestBodySchema } from "../../../api/schemas/agents/agent-schemas";
import { errorBodySchema } from "../../../api/schemas/error-schemas";
import { runTokenSchema, ticketSchema, createdRunSchema, messagesSchema, runViewSchema, runStatusSchema } from "../../../api/schemas/runs/run-view-schemas";
import { subjectSchema } from "../../../api/rules/subject";
import { tagSchema } from "../../../api/rules/tags";
import { isoTimeSchema } from "../../../api/rules/iso-time";
import { CURSOR_PATTERN, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, runsPageSchema } from "../../../api/schemas/subject/inbox-schemas";
import { requireCallback, requireCreator, requireRun } from "../../auth/auth";
import { requireRunListing } from "../../auth/schedule-auth";
import { afterQuerySchema } from "../../../api/rules/event-cursor";
import { compactBodySchema } from "../../../api/schemas/person/compact-schemas";
import { forkBodySchema } from "../../../api/schemas/runs/fork-schemas";

const errorContent = { "application/json": { schema: errorBodySchema } };

export function errors(...asked: (400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 429)[]) {
  // Every route may also answer 500 (internal) and 503 (the deployment is not configured).
  const statuses = [...asked, 500, 503] as const;
  const descriptions = {
    400: "Invalid request: schema violation, unknown field, unknown tool, disallowed host, past a cap of this deployment, …",
    401: "No or malformed credentials, or an expired or revoked user token.",
    402: "spend-limit: a run of a subject would reserve more than the subject has left today (the message says what is left and when it resets).",
    403: "A run or user token used where only the deployment token may act, or a user token naming another subject.",
    404: "Unknown run, or a run or user token of another run.",
    409: "The run is not in a state that allows this.",
    410: "cursor-expired: the inbox no longer keeps events that old (INBOX_EVENTS_DAYS); the message names the oldest seq. List the runs again, then follow from the listing's lastSeq.",
    413: "The body is larger than 1 MiB; or, on a route that takes images, they would take the run past RUN_IMAGE_BYTES_LIMIT bytes of images (nothing of the request is stored).",
    429: "Rate limited: wait for Retry-After seconds.",
    500: "Internal error (never with details).",
    503: "The deployment is not configured: the message names each setting to fix.",
  } as const;
  return Object.fromEntries(statuses.map((status) => [status, { description: descriptions[status], content: errorContent }]));
}

const runParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "run_abcdefghijklmnopqrstuvwxyz" }),
});

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export const createRunRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Start a run (deployment token, or a user token: the run is its subject's)",
  middleware: [requireCreator()] as const,
  request: {
    headers: z.object({
      "idempotency-key": z
        .string()
        .regex(/^[\x20-\x7e]{1,255}$/, { message: "Must be 1–255 printable characters." })
        .optional()
        .openapi({ description: "The same key answers the same run and token, whichever of this deployment's tokens sends it (for 30 days and more: until the run is deleted); a user token's key is scoped to its subject." }),
      traceparent: z
        .string()
        .optional()
        .openapi({ description: "W3C Trace Context: the run's trace joins the caller's trace, its spans under this span (docs/traces.md). One that is not valid is ignored, as the spec asks: the run's trace is then its own." }),
    }),
    body: { required: true, content: { "application/json": { schema: runRequestBodySchema } } },
  },
  responses: {
    201: json(createdRunSchema, "The run, and its run token (shown this once)."),
    ...errors(400, 401, 402, 403, 409, 413, 429),
  },
});

export const listRunsRoute = createRoute({
  method: "get",
  path: "/",
  summary: "One subject's runs, newest first (a user token's own; the deployment token names `subject`), one schedule's (`scheduleId`), or, for the deployment token, one stored agent's (`agent` without `subject`)",
  description: "Cursor pagination that is stable under inserts: a page starts after the last run of the one before, so new runs never shift it.",
  middleware: [requireRunListing()] as const,
  request: {
    query: z.strictObject({
      status: runStatusSchema.optional().openapi({ description: "Only runs in this status (e.g. waiting)." }),
      limit: z
        .string()
        .regex(/^\d{1,3}$/, { message: `Must be a whole number from 1 to ${LIST_LIMIT_MAX}.` })
        .refine((text) => Number(text) >= 1 && Number(text) <= LIST_LIMIT_MAX, { message: `Must be a whole number from 1 to ${LIST_LIMIT_MAX}.` })
        .optional()
        .openapi({ description: `Runs per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: z.string().regex(CURSOR_PATTERN, { message: "Not a cursor this API gave." }).optional().openapi({ description: "The nextCursor of the page before." }),
      subject: subjectSchema.optional().openapi({ description: "Deployment token: whose runs (required, unless scheduleId or agent is given). User token: its own, if given." }),
      scheduleId: z.string().optional().openapi({ description: "The runs of this schedule (with or without a subject), from the schedule's own index." }),
      agent: agentNameSchema.optional().openapi({ description: "Only the runs made from the stored agent of this name (any version): of the subject, or of the schedule; for the deployment token without subject, every run of the agent (any subject, or none), from the agent's own index." }),
      tag: tagSchema.optional().openapi({ description: "Only the runs tagged so when they were made (`tags`)." }),
      from: isoTimeSchema.optional().openapi({ description: "Only the runs created at or after this time (a date, or an RFC 3339 date-time)." }),
      to: isoTimeSchema.optional().openapi({ description: "Only the runs created before this time." }),
    }),
  },
  responses: { 200: json(runsPageSchema, "A page of runs."), ...errors(400, 401, 403, 404, 429) },
});

export const getRunRoute = createRoute({
  method: "get",
  path: "/{id}",
  summary: "A run",
  middleware: [requireRun({ view: true })] as const,
  request: { params: runParams },
  responses: { 200: json(runViewSchema, "The run."), ...errors(401, 404, 429) },
});

export const getMessagesRoute = createRoute({
  method: "get",
  path: "/{id}/messages",
  summary: "The given messages, then every turn of the run so far",
  middleware: [requireRun()] as const,
  request: { params: runParams },
  responses: { 200: json(messagesSchema, "A valid history to continue from."), ...errors(401, 404, 429) },
});

export const answerRoute = createRoute({
  method: "post",
  path: "/{id}/answer",
  summary: "Answer a waiting ask, approval or client tool",
  description:
    "First answer wins. The answer is checked before its images are stored: one the run does not take (400, 409, or 413 past RUN_IMAGE_BYTES_LIMIT) stores none of them, " +
    "and one it takes is stored only once its images are.",
  middleware: [requireRun()] as const,
  request: { params: runParams, body: { required: true, content: { "application/json": { schema: answerBodySchema } } } },
  responses: { 202: json(runViewSchema, "Accepted (a repeat of the same answer changes nothing)."), ...errors(400, 401, 404, 409, 413, 429) },
});

export const cancelRoute = createRoute({
  method: "post",
  path: "/{id}/cancel",
  summary: "Cancel a run",
  middleware: [requireRun()] as const,
  request: { params: runParams },
  responses: { 202: json(runViewSchema, "Cancelled (a run that already ended is unchanged)."), ...errors(401, 404, 429) },
});

export const continueRoute = createRoute({
  method: "post",
  path: "/{id}/messages",
  summary: "A user message: taken in by a running run (queue or interrupt), or a continue of a finished or cancelled one",
  description:
    "On a running run the message is stored at once and goes into the history before the next model call, after the current turn's tool results " +
    "(mode queue, the default); mode interrupt aborts the model call in flight (its partial answer dropped, its reported cost counted) and makes it again with the message. " +
    "A `user-message` event marks where it went. While a compaction or an async tool call is under way the message waits for it. " +
    "At most MAX_QUEUED_MESSAGES messages, and 256 KiB of them in all, wait at once (429 past either); past MAX_INTERRUPTS_PER_STEP interrupts of one model call, an interrupt is queued (the answer's message.mode says queue). " +
    "On a finished or cancelled run: a continue (allows `maxSteps` more model calls; the budget is not reset). A waiting run answers 409: answer it first; a failed one 409: retry it first. " +
    "A message whose images would take the run past RUN_IMAGE_BYTES_LIMIT is a 413; a refused message stores none of its images.",
  middleware: [requireRun()] as const,
  request: { params: runParams, body: { required: true, content: { "application/json": { schema: continueBodySchema } } } },
  responses: { 202: json(messageAnswerSchema, "Taken (a running run: `message` says how), or running again (a continue)."), ...errors(400, 401, 402, 404, 409, 413, 429) },
});

export const compactRoute = createRoute({
  method: "post",
  path: "/{id}/compact",
  summary: "Compact the run's history now (a waiting or finished run), or before its next model call (a running one)",
  description:
    "As the run's compaction mode says: the loop's summary (a waiting or finished run is compacted at once, and the next segment starts from it) " +
    "or the provider's own (the run's next model call compacts first). 409 when the run's compaction is off, or it was cancelled. " +
    "A finished run of a subject reserves what its budget has left in the subject's day first (402 spend-limit when it does not fit). The body is optional.",
  middleware: [requireRun()] as const,
  request: { params: runParams, body: { required: false, content: { "application/json": { schema: compactBodySchema } } } },
  responses: { 202: json(runViewSchema, "Compacted, or asked for before the next model call."), ...errors(400, 401, 402, 404, 409, 413, 429) },
});

export const retryRoute = createRoute({
  method: "post",
  path: "/{id}/retry",
  summary: "Resume a failed run from its journal",
  middleware: [requireRun()] as const,
  request: { params: runParams },
  responses: { 202: json(runViewSchema, "Running again."), ...errors(401, 402, 404, 409, 429) },
});

export const eventsRoute = createRoute({
  method: "get",
  path: "/{id}/events",
  summary: "The event stream: WebSocket (Upgrade: websocket) or SSE (Accept: text/event-stream)",
  description:
    "Stored events with seq > after, in order, then live events. WebSocket frames a client may send: " +
    '{"type":"answer",callId,…}, {"type":"cancel"}, {"type":"ping"} → {"type":"pong"}. ' +
    "SSE: id = seq, Last-Event-ID honoured. Browsers, which cannot set headers here, send a one-time `?ticket=` " +
    "(POST /v1/runs/{id}/tickets) instead of the Authorization header; tokens are never accepted in a URL.",
  middleware: [requireRun({ ticket: true })] as const,
  request: {
    params: runParams,
    query: z.strictObject({
      after: afterQuerySchema,
      ticket: z.string().optional().openapi({ description: "A one-time ticket, for clients that cannot set headers." }),
    }),
  },
  responses: {
    101: { description: "WebSocket: one JSON text frame per event (StoredEvent, or a live event without seq)." },
    200: { description: "SSE stream of the same events.", content: { "text/event-stream": { schema: z.string() } } },
    ...errors(400, 401, 404, 429),
  },
});

export const ticketRoute = createRoute({
  method: "post",
  path: "/{id}/tickets",
  summary: "A one-time ticket to open this run's event stream without an Authorization header (browsers)",
  middleware: [requireRun()] as const,
  request: { params: runParams },
  responses: { 201: json(ticketSchema, "Good for one connection to the events endpoint, within a minute."), ...errors(401, 404, 429) },
});

export const rotateTokenRoute = createRoute({
  method: "post",
  path: "/{id}/token",
  summary: "Replace the run token (deployment token): the old one stops working at once",
  middleware: [requireRun({ deploymentOnly: true })] as const,
  request: { params: runParams },
  responses: { 200: json(runTokenSchema, "The new run token, shown this once."), ...errors(401, 403, 404, 429) },
});

export const deleteRunRoute = createRoute({
  method: "delete",
  path: "/{id}",
  summary: "Delete a run (deployment token): cancels it, closes its streams, deletes its storage and blobs",
  middleware: [requireRun({ deploymentOnly: true })] as const,
  request: { params: runParams },
  responses: { 204: { description: "Deleted; the run answers 404 from now on and its id is never used again." }, ...errors(401, 403, 404, 429) },
});

export const forkRoute = createRoute({
  method: "post",
  path: "/{id}/fork",
  summary: "Fork a run at a model step: a new run whose prefix is the source's, replayed from its journal (no model or tool is called for it), then live",
  description:
    "The fork's history is the source's up to and including model step `atStep` and that turn's tool results; its journal holds the source's entries for that prefix. " +
    "`messages` are added after the prefix as the user's turn; the other fields replace the source's for the fork. Unchanged, the fork goes on exactly as the source would have " +
    "(its first model request is the source's for step atStep + 1). The fork belongs to the source's subject; the source's run token, a user token of its subject or the " +
    "deployment token may fork it. The full body the fork stores (the source's with these fields in place) goes through the one intake, as a new run's does (docs/api.md \"One intake\"). " +
    "A fork by a run or user token: its budget at most the source's (400 on budget.usd), charged to the source's subject's day (402 spend-limit), counted against " +
    "SUBJECT_CREATE_RATE_LIMIT (the deployment token's against CREATE_RATE_LIMIT; 429); a source with no subject is forked by the deployment token only (403). " +
    "400 when atStep is past the source's last committed step (the message names it); 404 for a deleted source; 409 when messages are added " +
    "after a turn whose calls have no result yet.",
  middleware: [requireRun({ creates: true })] as const,
  request: {
    params: runParams,
    headers: z.object({
      "idempotency-key": z
        .string()
        .regex(/^[\x20-\x7e]{1,255}$/, { message: "Must be 1–255 printable characters." })
        .optional()
        .openapi({ description: "The same key answers the same fork and token (per source and kind of token)." }),
    }),
    body: { required: true, content: { "application/json": { schema: forkBodySchema } } },
  },
  responses: {
    201: json(createdRunSchema, "The fork, and its run token (shown this once)."),
    ...errors(400, 401, 402, 403, 404, 409, 413, 429),
  },
});

export const exportRoute = createRoute({
  method: "get",
  path: "/{id}/export",
  summary: "The run as one JSON recording: options, segments with the steps its loop asks for (model steps with their requests), messages, journal entries with their costs, events",
  description:
    "`npm run replay -- <recording.json>` runs today's loop against it with no network: every recorded step must be asked for again, in order, with the same request (docs/deploy.md). " +
    "`format` is `ratchet-recording/2`: each model step's request is what it adds to the one before (`keep`, `messages`, `set`, `unset`) with `hash`, a hash of the whole request; replay also reads format 1 (each request whole). " +
    "Streamed as it is written, the journal and events read a page at a time. Its body is redacted like every view: no MCP server's headers, at any depth of agent templates (docs/api.md, What leaves the service).",
  middleware: [requireRun()] as const,
  request: { params: runParams },
  responses: { 200: json(z.record(z.string(), z.unknown()).openapi("Recording"), "The recording."), ...errors(401, 404, 429) },
});

const callParams = runParams.extend({
  callKey: z.string().openapi({ param: { name: "callKey", in: "path" }, description: "The call's key, as in the callback URL the tool got." }),
});

export const callResultRoute = createRoute({
  method: "post",
  path: "/{id}/calls/{callKey}/result",
  summary: "The result of an async HTTP tool call (the tool server, with that call's callback token)",
  description:
    "The URL and the token come with the call (`callback: { url, token }`; docs/http-tools.md). The first result is " +
    "taken; the same result again answers 202 as before; a different one, or one after the call's deadline or a cancel, is 409.",
  middleware: [requireCallback()] as const,
  request: { params: callParams, body: { required: true, content: { "application/json": { schema: callResultBodySchema } } } },
  responses: {
    202: json(callResultAcceptedSchema, "Taken (or the same result again)."),
    ...errors(400, 401, 404, 409, 413),
  },
});
