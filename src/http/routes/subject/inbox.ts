// /v1/inbox: one subject's stream of changes across all its runs, and its one-time tickets. The
// subject's inbox object (c.var.inbox, found by the auth middleware) holds and sends them.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../app-env";
import { inboxIdOf } from "../../../durable/inbox/inbox-stub";
import { invalidRequest, validationHook } from "../../errors";
import { forwarded, wantsEventStream } from "../../forward";
import { inboxEventsRoute, inboxTicketRoute } from "../definitions/inbox-routes";
import { newInboxTicket } from "../../auth/inbox-tickets";
import { withKeepAlive } from "../../../lib/sse/sse-keep-alive";

export function inboxApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(inboxTicketRoute, async (c) => {
    const ticket = await newInboxTicket(inboxIdOf(c.env, c.var.subject), Date.now());
    const token = c.var.caller === "user" ? c.var.watcherToken : undefined;
    await c.var.inbox.storeTicket({ hash: ticket.hash, kind: c.var.caller, expiresAt: ticket.expiresAt, ...(token === undefined ? {} : { token }) });
    return c.json({ ticket: ticket.ticket, expiresAt: new Date(ticket.expiresAt).toISOString() }, 201);
  });

  app.openapi(inboxEventsRoute, async (c) => {
    if (!wantsEventStream(c.req.raw)) {
      throw invalidRequest("The inbox stream needs a WebSocket upgrade (Upgrade: websocket) or Accept: text/event-stream.");
    }
    const events = await c.var.inbox.fetch(forwarded(c.req.raw, c.var.caller, ["ticket", "subject"], c.var.caller === "user" ? c.var.watcherToken : undefined));
    return withKeepAlive(events, c.var.settings.limits.sseKeepAliveSeconds);
  });

  return app;
}
