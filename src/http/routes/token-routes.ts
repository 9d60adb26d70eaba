// POST /v1/tokens as an OpenAPI route config (path relative to the /v1/tokens mount).
import { createRoute } from "@hono/zod-openapi";
import { mintTokenBodySchema, userTokenSchema } from "../../api/inbox-schemas";
import { requireDeployment } from "../auth/auth";
import { errors, json } from "./run-routes";

export const mintTokenRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Mint a user token for one subject (deployment token): it creates, lists, watches and acts on that subject's runs",
  middleware: [requireDeployment()] as const,
  request: { body: { required: true, content: { "application/json": { schema: mintTokenBodySchema } } } },
  responses: { 201: json(userTokenSchema, "The user token, shown this once."), ...errors(400, 401, 403, 413) },
});
