// /v1/push: Web Push for the console and other web apps (docs/push.md). The deployment's VAPID
// public key, and one subject's push subscriptions, kept by the subject's inbox object
// (c.var.inbox, found by the auth middleware), which sends the pushes.
import { OpenAPIHono } from "@hono/zod-openapi";
import { callbackBase } from "../../../config/public-url";
import { pushSettingsOf } from "../../../config/push-settings";
import { isPushEndpointAllowed } from "../../../push/push-hosts";
import type { AppEnv } from "../../app-env";
import { ApiException, invalidRequest, validationHook } from "../../errors";
import { unwrap } from "../../outcome";
import { listPushRoute, pushKeyRoute, subscribePushRoute, unsubscribePushRoute } from "../definitions/push-routes";

export function pushApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(pushKeyRoute, async (c) => {
    const settings = await pushSettingsOf(c.env);
    // requirePush let only a usable setting through.
    return c.json({ publicKey: settings.ok ? settings.settings.vapid.publicKey : "" }, 200);
  });

  app.openapi(subscribePushRoute, async (c) => {
    const body = c.req.valid("json");
    const settings = await pushSettingsOf(c.env);
    const hosts = settings.ok ? settings.settings.hosts : [];
    if (!isPushEndpointAllowed(body.endpoint, hosts)) {
      throw invalidRequest("Invalid request body.", [{ path: "endpoint", message: "Not a push service this deployment sends to (PUSH_HOSTS)." }]);
    }
    // Where a push opens the run: this deployment's public URL, or the origin the browser subscribed at.
    const base = callbackBase(c.env, new URL(c.req.url).origin) ?? new URL(c.req.url).origin;
    const record = { endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth, events: body.events ?? ["run.waiting" as const], base };
    const { subscription, created } = unwrap(await c.var.inbox.subscribePush(c.var.subject, record));
    return created ? c.json({ subscription }, 201) : c.json({ subscription }, 200);
  });

  app.openapi(listPushRoute, async (c) => c.json({ subscriptions: await c.var.inbox.pushSubscriptions() }, 200));

  app.openapi(unsubscribePushRoute, async (c) => {
    if (!(await c.var.inbox.unsubscribePush(c.req.valid("query").endpoint))) throw new ApiException(404, "No push subscription at this endpoint.");
    return c.body(null, 204);
  });

  return app;
}
