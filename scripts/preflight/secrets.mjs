// @ts-check
// The secrets the deploy preflight requires, and which names read as secrets.

/** The secrets the Worker needs in production. Tests and docs/deploy.md name these too. */
export const REQUIRED_SECRETS = Object.freeze(["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY"]);

/** How to make a good value for each secret (printed next to the command that sets it). */
export const VALUE_HINTS = Object.freeze({
  API_TOKEN: "openssl rand -base64 32",
  RUN_ID_KEY: "openssl rand -base64 32",
  TOOL_SIGNING_KEY: 'echo "whsec_$(openssl rand -base64 32)"',
  WEBHOOK_SECRET: 'echo "whsec_$(openssl rand -base64 32)"',
});

/** Names that read as secrets; `_PREVIOUS` covers the rotation slots (docs/deploy.md). */
const SECRET_LIKE = /_(TOKEN|KEY|SECRET)(_PREVIOUS)?$/i;

/** Names that read as secrets but hold public values, which belong in [vars] (Web Push's public key, docs/push.md). */
export const PUBLIC_NAMES = Object.freeze(["VAPID_PUBLIC_KEY"]);

/** @param {string} name */
export function looksLikeSecret(name) {
  if (PUBLIC_NAMES.includes(name)) return false;
  return SECRET_LIKE.test(name) || REQUIRED_SECRETS.some((secret) => name === secret || name === `${secret}_PREVIOUS`);
}
