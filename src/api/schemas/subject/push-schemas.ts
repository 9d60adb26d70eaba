// The zod schemas and types of Web Push (docs/push.md): the deployment's public key, a subject's
// push subscriptions, and the payload a push carries. Bodies a client sends are strict, as in
// ../runs/create-run-schemas.ts.
import { z } from "@hono/zod-openapi";
import type { PushEventType, PushSubscriptionView as PlainSubscriptionView } from "../../resources/push-types";

/** What a subscription may ask to be told; "run.waiting" is the default. */
export const PUSH_EVENTS = ["run.waiting", "run.finished", "run.failed"] as const satisfies readonly PushEventType[];
export type { PushEventType };

/** At most this many subscriptions a subject (its devices and browsers). */
export const PUSH_SUBSCRIPTIONS_LIMIT = 10;
/** The longest endpoint URL taken. */
export const MAX_PUSH_ENDPOINT_LENGTH = 2048;

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The byte length of a base64url text (as a browser's PushSubscription.toJSON() writes keys). */
function decodedLength(text: string): number {
  const plain = text.replace(/=+$/, "");
  return Math.floor((plain.length * 3) / 4);
}

export const pushEventSchema = z.enum(PUSH_EVENTS).openapi("PushEventType");

export const pushSubscriptionBodySchema = z
  .strictObject({
    endpoint: z
      .string()
      .min(1)
      .max(MAX_PUSH_ENDPOINT_LENGTH)
      .openapi({ description: "The push service's URL for this browser (PushSubscription.endpoint); its host must be on PUSH_HOSTS." }),
    keys: z
      .strictObject({
        p256dh: z
          .string()
          .regex(BASE64URL, { message: "Must be base64url." })
          .refine((text) => decodedLength(text) === 65, { message: "Must be an uncompressed P-256 public key (65 bytes)." })
          .openapi({ description: "The browser's public key (base64url, 65 bytes)." }),
        auth: z
          .string()
          .regex(BASE64URL, { message: "Must be base64url." })
          .refine((text) => decodedLength(text) === 16, { message: "Must be 16 bytes." })
          .openapi({ description: "The browser's authentication secret (base64url, 16 bytes)." }),
      })
      .openapi({ description: "PushSubscription.toJSON().keys." }),
    events: z
      .array(pushEventSchema)
      .min(1)
      .refine((events) => new Set(events).size === events.length, { message: "Each event at most once." })
      .optional()
      .openapi({ description: 'What to be told: "run.waiting" (default), "run.finished", "run.failed".' }),
    expirationTime: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: "As PushSubscription.toJSON() gives it; not used (a push service that ends the subscription answers 404 or 410, which removes it)." }),
  })
  .openapi("PushSubscriptionBody");

export type PushSubscriptionBody = z.infer<typeof pushSubscriptionBodySchema>;

export const pushSubscriptionViewSchema = z
  .object({
    endpoint: z.string(),
    events: z.array(pushEventSchema),
    createdAt: z.string(),
    lastStatus: z.number().int().optional().openapi({ description: "The push service's answer to the last push (0: no answer)." }),
    lastError: z.string().optional(),
    lastAttemptAt: z.string().optional(),
  })
  .openapi("PushSubscriptionView");

export type PushSubscriptionView = z.infer<typeof pushSubscriptionViewSchema>;
// The plain type clients use is the same shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const plainViewIsSame: Same<PushSubscriptionView, PlainSubscriptionView> = true;
void plainViewIsSame;

export const pushKeySchema = z
  .object({ publicKey: z.string().openapi({ description: "The VAPID public key (base64url): pushManager.subscribe's applicationServerKey." }) })
  .openapi("PushKey");

export const pushSubscriptionsSchema = z.object({ subscriptions: z.array(pushSubscriptionViewSchema) }).openapi("PushSubscriptions");

export type { PushPayload } from "../../resources/push-types";
