// A run's own webhook against this deployment: its host on the allow list (HTTP_TOOL_ALLOW), and a
// secret to sign it with (WEBHOOK_SECRET).
import type { Issue } from "../api/schemas/error-schemas";
import { webhookKeysOf } from "../config/webhook-settings";
import { isUrlAllowed, parseAllowList } from "../tools";
import { hostOf } from "../tools/http/allow-list";

export function webhookIssues(webhook: { url: string } | undefined, env: Env): Issue[] {
  if (webhook === undefined) return [];
  if (!isUrlAllowed(webhook.url, parseAllowList(env.HTTP_TOOL_ALLOW))) {
    return [{ path: "webhook.url", message: `Webhooks may not go to ${hostOf(webhook.url)}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` }];
  }
  const keys = webhookKeysOf(env);
  return keys.ok ? [] : [{ path: "webhook", message: `This deployment cannot sign webhooks: ${keys.problem}.` }];
}
