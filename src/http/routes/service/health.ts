// GET /v1/health: no auth, no storage; for load balancers and smoke tests.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { VERSION } from "../../../version";
import type { AppEnv } from "../../app-env";
import { validationHook } from "../../errors";
import { errors } from "../definitions/run-routes";

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  summary: "Liveness and version (no auth)",
  security: [],
  responses: {
    200: {
      description: "The service is up.",
      content: { "application/json": { schema: z.object({ ok: z.literal(true), version: z.string() }).openapi("Health") } },
    },
    // A deployment that is not configured answers 503 here too: a health check notices.
    ...errors(),
  },
});

export function healthApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(healthRoute, (c) => c.json({ ok: true as const, version: VERSION }, 200));
  return app;
}
