// The push routes' gate: Web Push is on only with usable VAPID settings (src/config/push-settings.ts).
// Off, or with a bad value, the push routes answer 503 naming the settings (never a value) to the
// authenticated caller; every other route works as before.
import type { MiddlewareHandler } from "hono";
import { describePushProblems, pushSettingsOf } from "../../config/push-settings";
import type { AppEnv } from "../app-env";
import { ApiException } from "../errors";

export function requirePush(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = await pushSettingsOf(c.env);
    if (!result.ok) throw new ApiException(503, describePushProblems(result.problems));
    await next();
  };
}
