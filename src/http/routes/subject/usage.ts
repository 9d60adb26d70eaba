// GET /v1/usage: a subject's spend today (src/api/rules/spend.ts). A user token reads its own subject's,
// against its own daily limit; the deployment token names the subject (?subject=) and reads it
// against SUBJECT_BUDGET_USD_PER_DAY. The subject's inbox object keeps the reservations.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { usageSchema } from "../../../api/schemas/subject/inbox-schemas";
import { subjectSchema } from "../../../api/rules/subject";
import type { AppEnv } from "../../app-env";
import { requireSubject } from "../../auth/auth";
import { validationHook } from "../../errors";
import { errors, json } from "../definitions/run-routes";

export const usageRoute = createRoute({
  method: "get",
  path: "/",
  summary: "A subject's spend today: its limit, what its runs hold and spent, what is left, when it resets",
  middleware: [requireSubject()] as const,
  request: {
    query: z.strictObject({
      subject: subjectSchema.optional().openapi({ description: "Deployment token: whose spend (required). User token: its own, if given." }),
    }),
  },
  responses: { 200: json(usageSchema, "The subject's spend today."), ...errors(400, 401, 403, 429) },
});

export function usageApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(usageRoute, async (c) => {
    const setting = c.var.settings.limits.subjectBudgetUsdPerDay;
    const limitUsd = c.var.caller === "user" ? (c.var.user.budgetUsdPerDay ?? setting) : setting;
    return c.json(await c.var.inbox.usage(c.var.subject, limitUsd), 200);
  });
  return app;
}
