// Who may do what with stored agents (docs/agents.md). The deployment token makes, changes and
// deletes them, and sees every one. A user token reads the agents it sees (those without a
// subject, and its own subject's: any other is 404, exactly like an unknown name) and calls them
// (POST /v1/runs {agent}); it may not change them (403). A run token has no business here (403).
// Requests with a user token count against RUN_TOKEN_RATE_LIMIT per subject, as elsewhere.
import type { MiddlewareHandler } from "hono";
import type { AgentReader } from "../../api/resources/agent-types";
import type { AppEnv, Creator } from "../app-env";
import { ApiException } from "../errors";
import { identify, identifyDeploymentOrUser } from "./auth";

/** Who reads agents, as the creator of a run or the reader of /v1/agents is. */
export function readerOf(creator: Creator): AgentReader {
  return creator.kind === "deployment" ? { kind: "deployment" } : { kind: "user", subject: creator.subject };
}

/** GET /v1/agents…: the deployment token, or a user token (counted); sets the caller and its creator (the reader). */
export function requireAgentReader(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identifyDeploymentOrUser(c, "A run token reaches its own run only; use a user token or the deployment token.");
    c.set("creator", caller.kind === "user" ? { kind: "user", subject: caller.subject } : { kind: "deployment" });
    await next();
  };
}

/** POST, PATCH and DELETE /v1/agents…: the deployment token only. */
export function requireAgentWriter(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await identify(c);
    if (caller.kind !== "deployment") throw new ApiException(403, "Only the deployment token makes, changes and deletes agents; a user token may read and call them.");
    c.set("caller", "deployment");
    c.set("creator", { kind: "deployment" });
    await next();
  };
}
