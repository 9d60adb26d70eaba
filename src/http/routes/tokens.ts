// /v1/tokens: user tokens, minted by an app's backend (deployment token) for one of its users and
// handed to that user's phone. Nothing is stored: the token is signed (../auth/user-tokens.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import { DEFAULT_USER_TOKEN_TTL_SECONDS } from "../../api/inbox-schemas";
import type { AppEnv } from "../app-env";
import { validationHook } from "../errors";
import { mintTokenRoute } from "./token-routes";
import { mintUserToken } from "../auth/user-tokens";

export function tokensApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(mintTokenRoute, async (c) => {
    const { subject, ttlSeconds = DEFAULT_USER_TOKEN_TTL_SECONDS } = c.req.valid("json");
    // Whole seconds: the token says when it expires in seconds, and the answer says the same moment.
    const expiresAt = (Math.floor(Date.now() / 1000) + ttlSeconds) * 1000;
    const token = await mintUserToken(c.var.settings.runIdKeys[0]!, subject, expiresAt);
    return c.json({ token, subject, expiresAt: new Date(expiresAt).toISOString() }, 201);
  });
  return app;
}
