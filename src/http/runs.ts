// /v1/runs: each handler parses (the route's schemas did), asks the run object, and answers.
// Decisions about runs are the run object's; this file only translates.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AnswerBody } from "../api/types";
import type { AppEnv } from "./app-env";
import { invalidRequest, validationHook } from "./errors";
import { ImageIntake } from "./images";
import { prepareRun } from "./new-run";
import { unwrap } from "./outcome";
import {
  answerRoute,
  cancelRoute,
  continueRoute,
  createRunRoute,
  eventsRoute,
  getMessagesRoute,
  getRunRoute,
  retryRoute,
} from "./run-routes";
import { runStub } from "./run-stub";

function wantsEventStream(request: Request): boolean {
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return true;
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/** The request the run object sees: the token stays at the edge. */
function withoutToken(request: Request): Request {
  const url = new URL(request.url);
  url.searchParams.delete("token");
  return new Request(url, request);
}

export function runsApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(createRunRoute, async (c) => {
    const { newRun, token } = await prepareRun(c.req.valid("json"), c.env, c.req.valid("header")["idempotency-key"]);
    const run = unwrap(await runStub(c.env, newRun.id).create(newRun));
    return c.json({ run, token }, 201);
  });

  app.openapi(getRunRoute, async (c) => c.json(unwrap(await c.var.run.view()), 200));

  app.openapi(getMessagesRoute, async (c) => c.json(unwrap(await c.var.run.messages()), 200));

  app.openapi(answerRoute, async (c) => {
    const { content, ...rest } = c.req.valid("json");
    const body: AnswerBody = rest;
    if (content !== undefined) {
      const images = new ImageIntake();
      body.content = await images.content(content, "content");
      await images.commit(c.env.BLOBS);
    }
    return c.json(unwrap(await c.var.run.answer(body)), 202);
  });

  app.openapi(cancelRoute, async (c) => c.json(unwrap(await c.var.run.cancel()), 202));

  app.openapi(continueRoute, async (c) => {
    const images = new ImageIntake();
    const content = await images.content(c.req.valid("json").content, "content");
    await images.commit(c.env.BLOBS);
    return c.json(unwrap(await c.var.run.continueRun(content)), 202);
  });

  app.openapi(retryRoute, async (c) => c.json(unwrap(await c.var.run.retry()), 202));

  app.openapi(eventsRoute, async (c) => {
    if (!wantsEventStream(c.req.raw)) {
      throw invalidRequest("The events endpoint needs a WebSocket upgrade (Upgrade: websocket) or Accept: text/event-stream.");
    }
    return c.var.run.fetch(withoutToken(c.req.raw));
  });

  return app;
}
