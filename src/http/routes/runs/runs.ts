// /v1/runs: each handler parses (the route's schemas did), asks the run object, and answers.
// Decisions about runs are the run object's; this file only translates.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { JSONValue } from "hono/utils/types";
import type { CallResultBody, RunsPage } from "../../../api/types";
import type { AppEnv } from "../../app-env";
import { LIST_LIMIT_DEFAULT } from "../../../api/schemas/subject/inbox-schemas";
import type { ListAnswer, ListQuery } from "../../../api/rpc/inbox-rpc";
import { decodeCursor, encodeCursor } from "./cursor";
import { isoTime } from "../../../api/rules/iso-time";
import { sha256Hex } from "../../../lib/text/encoding";
import { invalidRequest, validationHook } from "../../errors";
import { wantsEventStream } from "../../forward";
import { newRunToken } from "../../ids/ids";
import { startRun } from "../../intake/start-run";
import { runBodyHook } from "../../agents/run-body-hook";
import { answerRun, forkRun, retryRun, sendMessage } from "./run-actions";
import { openRunEvents } from "./run-watch";
import { unwrap } from "../../outcome";
import {
  answerRoute,
  callResultRoute,
  cancelRoute,
  compactRoute,
  continueRoute,
  createRunRoute,
  deleteRunRoute,
  eventsRoute,
  exportRoute,
  forkRoute,
  getMessagesRoute,
  getRunRoute,
  listRunsRoute,
  retryRoute,
  rotateTokenRoute,
  ticketRoute,
} from "../definitions/run-routes";
import { newTicket } from "../../auth/tickets";
import { parseTraceparent } from "../../../lib/traceparent";
import { withKeepAlive } from "../../../lib/sse/sse-keep-alive";

/**
 * A schedule's runs come from its own index (requireRunListing found the schedule); an agent's, for
 * the deployment token without a subject, from the agent's own index (which holds no other run, so
 * the filter is left out); a subject's from its inbox.
 */
async function listingPage(c: Context<AppEnv>, query: ListQuery, scheduleId: string | undefined): Promise<ListAnswer> {
  if (scheduleId !== undefined) return unwrap(await c.var.schedule.listRuns(query));
  if (c.var.subject !== undefined) return c.var.inbox.list(query);
  const { agent: _agent, ...all } = query;
  return c.var.agentRuns.list(all);
}

export function runsApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(
    createRunRoute,
    async (c) => {
      const header = c.req.valid("header");
      const traceParent = parseTraceparent(header.traceparent);
      const created = await startRun({
        body: c.req.valid("json"),
        env: c.env,
        settings: c.var.settings,
        creator: c.var.creator,
        origin: new URL(c.req.url).origin,
        idempotencyKey: header["idempotency-key"],
        traceParent,
        admission: c.var.admission,
      });
      return c.json(created, 201);
    },
    runBodyHook,
  );

  app.openapi(forkRoute, async (c) => c.json(await forkRun(c, c.req.valid("json"), c.req.valid("header")["idempotency-key"]), 201));

  app.openapi(listRunsRoute, async (c) => {
    const { status, limit, cursor, scheduleId, agent, tag, from, to } = c.req.valid("query");
    const query: ListQuery = { limit: limit === undefined ? LIST_LIMIT_DEFAULT : Number(limit) };
    if (status !== undefined) query.status = status;
    if (agent !== undefined) query.agent = agent;
    if (tag !== undefined) query.tag = tag;
    if (from !== undefined) query.from = isoTime(from);
    if (to !== undefined) query.to = isoTime(to);
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      if (after === undefined) throw invalidRequest("Invalid request query.", [{ path: "cursor", message: "Not a cursor this API gave." }]);
      query.after = after;
    }
    const page = await listingPage(c, query, scheduleId);
    const answer: RunsPage = { runs: page.runs };
    if (page.next !== undefined) answer.nextCursor = encodeCursor(page.next);
    if (page.lastSeq !== undefined) answer.lastSeq = page.lastSeq;
    return c.json(answer, 200);
  });

  // A run or user token's check read the view already (requireRun's `view`).
  app.openapi(getRunRoute, async (c) => c.json(unwrap(c.var.view ?? (await c.var.run.view())), 200));

  // Streamed as the run object writes it (src/durable/forks/export-run.ts): a long run's recording
  // is never held whole. The route's schema says JSON, which this is; the typed answer of a JSON
  // route is c.json's, which would hold it whole, hence the cast.
  app.openapi(exportRoute, async (c) => c.body(unwrap(await c.var.run.exportRun()), 200, { "content-type": "application/json" }) as unknown as TypedResponse<Record<string, JSONValue>, 200, "json">);

  app.openapi(getMessagesRoute, async (c) => c.json(unwrap(await c.var.run.messages()), 200));

  app.openapi(answerRoute, async (c) => c.json(await answerRun(c, c.req.valid("json")), 202));

  app.openapi(cancelRoute, async (c) => c.json(unwrap(await c.var.run.cancel()), 202));

  app.openapi(continueRoute, async (c) => c.json(await sendMessage(c, c.req.valid("json")), 202));

  app.openapi(retryRoute, async (c) => c.json(await retryRun(c), 202));

  app.openapi(compactRoute, async (c) => {
    const { instructions } = c.req.valid("json");
    return c.json(unwrap(await c.var.run.compact(instructions === undefined ? {} : { instructions })), 202);
  });

  app.openapi(ticketRoute, async (c) => {
    const ticket = await newTicket(Date.now());
    const token = c.var.caller === "user" ? c.var.watcherToken : undefined;
    unwrap(await c.var.run.storeTicket({ hash: ticket.hash, kind: c.var.caller, expiresAt: ticket.expiresAt, ...(token === undefined ? {} : { token }) }));
    return c.json({ ticket: ticket.ticket, expiresAt: new Date(ticket.expiresAt).toISOString() }, 201);
  });

  app.openapi(rotateTokenRoute, async (c) => {
    const token = newRunToken();
    unwrap(await c.var.run.rotateToken(await sha256Hex(token)));
    return c.json({ token }, 200);
  });

  app.openapi(deleteRunRoute, async (c) => {
    unwrap(await c.var.run.deleteRun());
    return c.body(null, 204);
  });

  app.openapi(callResultRoute, async (c) => {
    // requireCallback checked the call key and its token, and decoded the call's step key.
    const body: CallResultBody = c.req.valid("json");
    return c.json(unwrap(await c.var.run.deliverResult(c.var.callStepKey, body)), 202);
  });

  app.openapi(eventsRoute, async (c) => {
    if (!wantsEventStream(c.req.raw)) {
      throw invalidRequest("The events endpoint needs a WebSocket upgrade (Upgrade: websocket) or Accept: text/event-stream.");
    }
    return withKeepAlive(await openRunEvents(c, c.req.param("id"), c.req.raw), c.var.settings.limits.sseKeepAliveSeconds);
  });

  return app;
}
