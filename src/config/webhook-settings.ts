// The deployment's webhook settings (docs/inbox.md "Webhooks"): WEBHOOK_URL, the receiver of every
// run's events, and WEBHOOK_SECRET (and WEBHOOK_SECRET_PREVIOUS while receivers move to a new
// one), the Standard Webhooks secret every webhook is signed with, its own and each run's
// `webhook.url`. Secrets are written as Standard Webhooks writes them: "whsec_" and base64.
import { isHttpUrl } from "../api/rules/http-url";
import { decodeSigningKeys, type DecodedSigningKeys } from "../tools/http/signing-keys";

export const WEBHOOK_KEY_SETTINGS = ["WEBHOOK_SECRET", "WEBHOOK_SECRET_PREVIOUS"] as const;

type WebhookEnv = { WEBHOOK_URL?: string | undefined; WEBHOOK_SECRET?: string | undefined; WEBHOOK_SECRET_PREVIOUS?: string | undefined };

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** The configured secrets, current first; none without WEBHOOK_SECRET (a previous one alone is a rotation left half done). */
export function webhookSecretsOf(env: WebhookEnv): string[] {
  if (!isSet(env.WEBHOOK_SECRET)) return [];
  return isSet(env.WEBHOOK_SECRET_PREVIOUS) ? [env.WEBHOOK_SECRET, env.WEBHOOK_SECRET_PREVIOUS] : [env.WEBHOOK_SECRET];
}

/** The secrets' bytes, or what is wrong with them (naming the setting, never its value). */
export function webhookKeysOf(env: WebhookEnv): DecodedSigningKeys {
  return decodeSigningKeys(webhookSecretsOf(env), WEBHOOK_KEY_SETTINGS, "webhooks are signed with it");
}

/** True when WEBHOOK_URL is set: every run's events go there too. */
export function hasDeploymentWebhook(env: WebhookEnv): boolean {
  return isSet(env.WEBHOOK_URL);
}

/**
 * What is wrong with the webhook settings, for the deployment's 503: a WEBHOOK_URL that is no
 * http(s) URL, or one without a usable WEBHOOK_SECRET (its webhooks could not be signed).
 */
export function webhookProblems(env: WebhookEnv): { setting: string; problem: string }[] {
  const problems: { setting: string; problem: string }[] = [];
  if (!hasDeploymentWebhook(env)) return problems;
  if (!isHttpUrl(env.WEBHOOK_URL!.trim())) problems.push({ setting: "WEBHOOK_URL", problem: "is not an http(s) URL" });
  const keys = webhookKeysOf(env);
  if (!keys.ok) problems.push({ setting: "WEBHOOK_SECRET", problem: `must be set and valid while WEBHOOK_URL is: ${keys.problem}` });
  return problems;
}
