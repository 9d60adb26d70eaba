// /v1/tokens: user tokens, minted by an app's backend (deployment token) for one of its users and
// handed to that user's phone, and revoked before their expiry by the backend or the token itself.
// A token is checked by its signature (../../auth/user-tokens.ts); only revocations are stored, by the
// subject's inbox, until the token would have expired anyway.
import { OpenAPIHono } from "@hono/zod-openapi";
import { DEFAULT_USER_TOKEN_TTL_SECONDS, MAX_USER_TOKEN_TTL_SECONDS } from "../../../api/schemas/subject/inbox-schemas";
import { SUBJECT_BUDGET_SETTING } from "../../../api/rules/spend";
import { inboxIdOf, inboxStubById } from "../../../durable/inbox/inbox-stub";
import type { AppEnv } from "../../app-env";
import { ApiException, invalidRequest, validationHook } from "../../errors";
import { mintTokenRoute, revokeTokenRoute } from "../definitions/token-routes";
import { mintUserToken, newTokenId } from "../../auth/user-tokens";
import { parsePublicTokenId, publicTokenId } from "../../ids/token-ids";
import { runStub } from "../../run-stub";

export function tokensApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(mintTokenRoute, async (c) => {
    const { subject, ttlSeconds = DEFAULT_USER_TOKEN_TTL_SECONDS, budgetUsdPerDay } = c.req.valid("json");
    const limit = c.var.settings.limits.subjectBudgetUsdPerDay;
    if (budgetUsdPerDay !== undefined && budgetUsdPerDay > limit) {
      throw invalidRequest("Invalid request body.", [{ path: "budgetUsdPerDay", message: `At most ${limit} on this deployment (${SUBJECT_BUDGET_SETTING}).` }]);
    }
    // Whole seconds: the token says when it expires in seconds, and the answer says the same moment.
    const expiresAt = (Math.floor(Date.now() / 1000) + ttlSeconds) * 1000;
    const tokenId = newTokenId();
    const token = await mintUserToken(c.var.settings.runIdKeys[0]!, subject, expiresAt, budgetUsdPerDay === undefined ? { tokenId } : { tokenId, budgetUsdPerDay });
    const id = publicTokenId(tokenId, inboxIdOf(c.env, subject));
    return c.json({ token, id, subject, expiresAt: new Date(expiresAt).toISOString(), budgetUsdPerDay: budgetUsdPerDay ?? limit }, 201);
  });

  app.openapi(revokeTokenRoute, async (c) => {
    const parsed = parsePublicTokenId(c.req.valid("param").id);
    if (parsed === undefined) throw new ApiException(404, "No such token: ids look like tok_… as POST /v1/tokens answered them.");
    if (c.var.caller === "user") {
      const own = c.var.user;
      if (own.tokenId !== parsed.tokenId || inboxIdOf(c.env, own.subject) !== parsed.inboxId) throw new ApiException(403, "A user token may revoke only itself.");
    }
    const inbox = inboxStubById(c.env, parsed.inboxId);
    if (inbox === undefined) throw new ApiException(404, "No such token: ids look like tok_… as POST /v1/tokens answered them.");
    // Kept as long as any token can live: the id alone does not say when this one expires.
    const watched = await inbox.revokeToken(c.var.caller === "user" ? c.var.user.subject : undefined, parsed.tokenId, Date.now() + MAX_USER_TOKEN_TTL_SECONDS * 1000);
    // The token's streams on its runs close too (its requests are refused from now on either way).
    await Promise.all(watched.map((runId) => runStub(c.env, runId).closeWatchers(parsed.tokenId).catch(() => null)));
    return c.body(null, 204);
  });

  return app;
}
