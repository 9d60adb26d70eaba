// GET /v1/openapi.json: the OpenAPI 3.1 document, generated from the routes' own schemas (no
// auth). The document is built from the whole app's registry, which this sub-app cannot see by
// itself: the app hands it a function that builds it.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../app-env";
import { validationHook } from "../../errors";
import { errors } from "../definitions/run-routes";

const openApiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  summary: "This document (no auth)",
  security: [],
  responses: {
    200: { description: "The OpenAPI 3.1 document.", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    ...errors(),
  },
});

export function openApiApp(document: () => object): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  let cached: object | undefined;
  // Built once per isolate: the routes never change after start-up.
  app.openapi(openApiRoute, (c) => c.json((cached ??= document()), 200));
  return app;
}
