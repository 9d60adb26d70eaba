// /v1/tokens as OpenAPI route configs (paths relative to the /v1/tokens mount).
import { createRoute, z } from "@hono/zod-openapi";
import { mintTokenBodySchema, userTokenSchema } from "../../../api/schemas/subject/inbox-schemas";
import { requireDeployment, requireDeploymentOrUser } from "../../auth/auth";
import { errors, json } from "./run-routes";

export const mintTokenRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Mint a user token for one subject (deployment token): it creates, lists, watches and acts on that subject's runs",
  middleware: [requireDeployment()] as const,
  request: { body: { required: true, content: { "application/json": { schema: mintTokenBodySchema } } } },
  responses: { 201: json(userTokenSchema, "The user token, shown this once, and its id."), ...errors(400, 401, 403, 413) },
});

export const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/{id}",
  summary: "Revoke a user token before it expires (the deployment token, or the user token itself): 401 from now on, and its open streams close (4001)",
  middleware: [requireDeploymentOrUser()] as const,
  request: { params: z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The id POST /v1/tokens answered (tok_…)." }) }) },
  responses: { 204: { description: "Revoked (revoking again changes nothing)." }, ...errors(401, 403, 404, 429) },
});
