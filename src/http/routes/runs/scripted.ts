// POST /v1/runs/:id/scripted/holds/:name/release: a test releases a scripted turn's `hold`
// (src/providers/scripted/holds.ts), so it can act while a model call is known to be in flight
// instead of racing a delay. A route for local runs and tests: it exists only where
// SCRIPTED_PROVIDER=on (.dev.vars and the tests; unset in a deploy), answers only the deployment
// token, and is left out of the OpenAPI document, which describes the deployed API (docs/api.md
// describes it with the scripted provider).
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { issuesOf } from "../../../api/schemas/error-schemas";
import { SCRIPTED_PROVIDER_SETTING } from "../../../config/settings";
import { holdNameSchema } from "../../../providers";
import type { AppEnv } from "../../app-env";
import { requireRun } from "../../auth/auth";
import { ApiException, invalidRequest } from "../../errors";
import { unwrap } from "../../outcome";

const releaseParams = z.object({ name: holdNameSchema });

/** Where SCRIPTED_PROVIDER is off the route is not there: 404 before any token or run is looked at. */
const scriptedOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.var.settings.scriptedProvider) {
    throw new ApiException(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}: releasing a scripted hold is for local runs and tests, where ${SCRIPTED_PROVIDER_SETTING}=on.`);
  }
  await next();
};

export function scriptedApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/holds/:name/release", scriptedOnly, requireRun({ deploymentOnly: true }), async (c) => {
    const params = releaseParams.safeParse({ name: c.req.param("name") });
    if (!params.success) throw invalidRequest("Invalid request path.", issuesOf(params.error));
    unwrap(await c.var.run.releaseHold(params.data.name));
    return c.body(null, 204);
  });
  return app;
}
