// The first gate of every request: a deployment that is not configured safely answers 503
// not-configured (naming each setting to fix, never a value) and serves nothing else. The checked
// settings go on the context for the routes.
import type { MiddlewareHandler } from "hono";
import { describeProblems, isLocalDev, settingsOf } from "../config/settings";
import type { AppEnv } from "./app-env";
import { ApiException } from "./errors";

export const requireConfigured: MiddlewareHandler<AppEnv> = async (c, next) => {
  const result = settingsOf(c.env, isLocalDev(c.env, new URL(c.req.url).hostname));
  if (!result.ok) throw new ApiException(503, describeProblems(result.problems));
  c.set("settings", result.settings);
  await next();
};
