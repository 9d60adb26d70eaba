// The `{v}` of /v1/ai-sdk/{v}/chat…: a version this service speaks, else 404 in the API's error
// shape (before any token is looked at: a path that does not exist needs none).
import type { MiddlewareHandler } from "hono";
import { CHAT_VERSIONS, chatCaps } from "../../../api/ai-sdk/versions";
import type { AppEnv } from "../../app-env";
import { ApiException } from "../../errors";

export function requireChatVersion(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (chatCaps(c.req.param("v") ?? "") === undefined) {
      throw new ApiException(404, `No such AI SDK version: the chat routes speak ${CHAT_VERSIONS.join(", ")} (/v1/ai-sdk/{v}/chat).`);
    }
    await next();
  };
}
