// The HTTP edge: one Hono app, one sub-app per resource, one error handler. It authenticates,
// validates and hands each run to its Durable Object; it decides nothing about runs itself.
import { OpenAPIHono } from "@hono/zod-openapi";
import { storedInboxEventSchema } from "../api/schemas/subject/inbox-schemas";
import { agentToolByNameSchema } from "../api/schemas/tools/tool-schemas";
import { storedEventSchema } from "../api/schemas/streams/event-schemas";
import { clientFrameSchema } from "../api/schemas/streams/frame-schemas";
import { VERSION } from "../version";
import { apiCors } from "./api-cors";
import type { AppEnv } from "./app-env";
import { bodyLimit, MAX_BODY_BYTES } from "./body-limit";
import { requireConfigured } from "./configured";
import { errorsOnly, onError, onNotFound, validationHook } from "./errors";
import { a2aApp } from "./a2a/a2a-app";
import { agUiApp } from "./ag-ui/ag-ui-app";
import { rootCardApp } from "./a2a/root-card";
import { agentsApp } from "./routes/agents";
import { healthApp } from "./routes/service/health";
import { openApiApp } from "./routes/service/openapi";
import { inboxApp } from "./routes/subject/inbox";
import { pushApp } from "./routes/subject/push";
import { runsApp } from "./routes/runs/runs";
import { schedulesApp } from "./routes/schedules";
import { scriptedApp } from "./routes/runs/scripted";
import { tokensApp } from "./routes/subject/tokens";
import { usageApp } from "./routes/subject/usage";
import { mcpApp } from "./mcp/session/mcp-route";
import { chatApp } from "./routes/ai-sdk/chat";
import { datasetsApp } from "./routes/evals/datasets";
import { experimentsApp } from "./routes/evals/experiments";
import { experimentEventSchema } from "../api/schemas/evals/experiment-schemas";

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", errorsOnly);
  // Before the body limit and the routes' auth: a preflight is answered here, and every answer to
  // an allowed origin, errors included (a 503 too), carries its CORS headers.
  app.use("/v1/*", apiCors());
  // A deployment without safe secrets serves nothing (503 not-configured).
  app.use("*", requireConfigured);
  // Before any route, so that no handler or validator ever reads more than the limit.
  app.use("*", bodyLimit(MAX_BODY_BYTES));

  app.route("/v1", healthApp());
  app.route("/v1/runs", runsApp());
  app.route("/v1/tokens", tokensApp());
  app.route("/v1/inbox", inboxApp());
  app.route("/v1/usage", usageApp());
  app.route("/v1/schedules", schedulesApp());
  app.route("/v1/push", pushApp());
  app.route("/v1/runs/:id/scripted", scriptedApp());
  app.route("/a2a", a2aApp());
  app.route("/.well-known", rootCardApp());
  app.route("/v1/agents", agentsApp());
  app.route("/mcp", mcpApp());
  app.route("/v1/ai-sdk", chatApp());
  app.route("/v1/ag-ui", agUiApp());
  app.route("/v1/datasets", datasetsApp());
  app.route("/v1/experiments", experimentsApp());

  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "The deployment token (API_TOKEN); a run token for that run's own routes; or a user token (POST /v1/tokens) for its subject's runs and inbox.",
  });
  // Sent over the events socket and stream rather than in a response body: listed for clients.
  registry.register("StoredEvent", storedEventSchema);
  registry.register("ClientFrame", clientFrameSchema);
  registry.register("InboxEvent", storedInboxEventSchema);
  registry.register("ExperimentEvent", experimentEventSchema);
  // Named by the request's agent tool (its two forms: src/api/schemas/tools/tool-schemas.ts).
  registry.register("AgentToolByNameRef", agentToolByNameSchema);

  app.route(
    "/v1",
    openApiApp(() =>
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: { title: "Ratchet API", version: VERSION, description: "Durable AI tool-calling agent runs." },
        security: [{ bearer: [] }],
      }),
    ),
  );

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
