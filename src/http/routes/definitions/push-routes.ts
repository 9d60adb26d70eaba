// The routes of /v1/push as OpenAPI route configs (paths relative to the /v1/push mount): the
// deployment's VAPID public key, and one subject's push subscriptions (docs/push.md).
import { createRoute, z } from "@hono/zod-openapi";
import { MAX_PUSH_ENDPOINT_LENGTH, pushKeySchema, pushSubscriptionBodySchema, pushSubscriptionsSchema, pushSubscriptionViewSchema } from "../../../api/schemas/subject/push-schemas";
import { subjectSchema } from "../../../api/rules/subject";
import { requireDeploymentOrUser, requireSubject } from "../../auth/auth";
import { requirePush } from "../../auth/push-auth";
import { errors, json } from "./run-routes";

const subjectQuery = subjectSchema.optional().openapi({ description: "Deployment token: whose subscriptions (required). User token: its own, if given." });

const pushOff = "not-configured: Web Push is off (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT unset) or one of them is not valid; the message names the settings (or the deployment is not configured).";

/** The route's error answers, its 503 saying that push may be off. */
function pushErrors(...asked: Parameters<typeof errors>) {
  const answers = errors(...asked);
  return { ...answers, 503: { ...answers[503], description: pushOff } };
}

export const pushKeyRoute = createRoute({
  method: "get",
  path: "/key",
  summary: "The deployment's VAPID public key, for pushManager.subscribe's applicationServerKey",
  middleware: [requireDeploymentOrUser(), requirePush()] as const,
  responses: { 200: json(pushKeySchema, "The key (base64url)."), ...pushErrors(401, 403, 429) },
});

export const subscribePushRoute = createRoute({
  method: "post",
  path: "/subscriptions",
  summary: "Ring this browser when one of the subject's runs waits (a user token's own subject; the deployment token names `subject`)",
  middleware: [requireSubject(), requirePush()] as const,
  request: {
    query: z.strictObject({ subject: subjectQuery }),
    body: { content: { "application/json": { schema: pushSubscriptionBodySchema } }, required: true },
  },
  responses: {
    201: json(z.object({ subscription: pushSubscriptionViewSchema }), "Subscribed."),
    200: json(z.object({ subscription: pushSubscriptionViewSchema }), "The subscription at this endpoint was there: its keys and events are replaced."),
    ...pushErrors(400, 401, 403, 409, 413, 429),
  },
});

export const listPushRoute = createRoute({
  method: "get",
  path: "/subscriptions",
  summary: "The subject's push subscriptions, oldest first, with the last push's answer",
  middleware: [requireSubject(), requirePush()] as const,
  request: { query: z.strictObject({ subject: subjectQuery }) },
  responses: { 200: json(pushSubscriptionsSchema, "The subscriptions (no keys)."), ...pushErrors(400, 401, 403, 429) },
});

export const unsubscribePushRoute = createRoute({
  method: "delete",
  path: "/subscriptions",
  summary: "Stop ringing a browser: its subscription, by endpoint",
  middleware: [requireSubject(), requirePush()] as const,
  request: {
    query: z.strictObject({
      endpoint: z.string().min(1).max(MAX_PUSH_ENDPOINT_LENGTH).openapi({ description: "The subscription's endpoint (URL-encoded)." }),
      subject: subjectQuery,
    }),
  },
  responses: { 204: { description: "Removed, with its pushes still to send." }, ...pushErrors(400, 401, 403, 404, 429) },
});
