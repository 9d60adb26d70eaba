// A new run's provider and model, and whether this deployment can price it: the defaults when the
// body names none, a 400 for a provider this deployment has no key for, and a 400 naming the
// PRICES setting for a model no price is known for (a real provider's model is never priced as
// some other model). Pure functions of the body and the settings; a refusal is an IntakeRefusal.
import type { Issue } from "../api/schemas/error-schemas";
import type { CreateRunBody, ProviderName } from "../api/types";
import { modelPrice, unknownPriceMessage } from "../providers/common/prices/model-prices";
import type { PriceTable } from "../providers/common/prices/prices";
import { SCRIPTED_PROVIDER_SETTING } from "../config/settings";
import { IntakeRefusal } from "./refusal";

/** The model of a run on anthropic (or scripted) when neither the body nor DEFAULT_MODEL names one. */
export const FALLBACK_MODEL = "claude-sonnet-5-5";
/** The model of a run on openai when neither the body nor DEFAULT_OPENAI_MODEL names one. */
export const FALLBACK_OPENAI_MODEL = "gpt-5.5";

type ProviderEnv = { ANTHROPIC_API_KEY?: string; OPENAI_API_KEY?: string; DEFAULT_MODEL?: string; DEFAULT_OPENAI_MODEL?: string };

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

const KEYS = { anthropic: ["ANTHROPIC_API_KEY", "Anthropic"], openai: ["OPENAI_API_KEY", "OpenAI"] } as const;

/**
 * The provider: as asked; else "scripted" when the body brings a script (it is for nothing else);
 * else "anthropic" when this deployment has its key, else "openai" when it has that key, else
 * "scripted". A real provider without its key is a 400; with no key at all and no scripted
 * provider, a run that names none is a 400 too.
 */
export function resolveProvider(body: Pick<CreateRunBody, "provider" | "script">, env: ProviderEnv, scriptedAllowed = true): ProviderName {
  const real = nonEmpty(env.ANTHROPIC_API_KEY) ? "anthropic" : nonEmpty(env.OPENAI_API_KEY) ? "openai" : undefined;
  if (body.provider === undefined && body.script === undefined && real === undefined && !scriptedAllowed) {
    throw new IntakeRefusal(400, "No provider is configured on this deployment: set ANTHROPIC_API_KEY or OPENAI_API_KEY.", [{ path: "provider", message: "No model provider is available." }]);
  }
  const provider: ProviderName = body.provider ?? (body.script !== undefined ? "scripted" : (real ?? "scripted"));
  if (provider !== "scripted") {
    const [setting, vendor] = KEYS[provider];
    if (!nonEmpty(env[setting])) {
      throw new IntakeRefusal(400, `Provider "${provider}" is not available: this deployment has no ${setting}.`, [{ path: "provider", message: `No ${vendor} key is configured.` }]);
    }
  }
  return provider;
}

/**
 * The scripted provider plays what the request wrote, so it runs only where SCRIPTED_PROVIDER=on
 * (local runs, tests) and never for a run a user or run token asks for: an end user must not be
 * able to make a run whose "model" says what they wrote. `chosenByCaller` is false where the
 * provider and its script came from elsewhere (a fork that keeps its source's). 403 naming the
 * setting. In local development (LOCAL_DEV at a loopback address) the caller passes `byToken`
 * false: there the tokens are the developer's own, and the user-token path can be tried offline.
 */
export function requireScriptedAllowed(provider: ProviderName, byToken: boolean, scriptedProvider: boolean, chosenByCaller = true): void {
  if (provider !== "scripted") return;
  if (byToken && chosenByCaller) {
    const message = `A user or run token cannot start a run on the scripted provider, whose model says what the request wrote; it is for the deployment token, where ${SCRIPTED_PROVIDER_SETTING}=on.`;
    throw new IntakeRefusal(403, message, [{ path: "provider", message: "Not for a user or run token." }]);
  }
  if (!scriptedProvider) {
    const message = `The scripted provider is off on this deployment (${SCRIPTED_PROVIDER_SETTING}=on turns it on, for local runs and tests).`;
    throw new IntakeRefusal(403, message, [{ path: "provider", message: `Off on this deployment (${SCRIPTED_PROVIDER_SETTING}).` }]);
  }
}

/** The model: as asked; else DEFAULT_OPENAI_MODEL (gpt-5.5) on openai, DEFAULT_MODEL (claude-sonnet-5-5) on the others. */
export function resolveModel(body: Pick<CreateRunBody, "model">, env: ProviderEnv, provider: ProviderName = "anthropic"): string {
  if (body.model !== undefined) return body.model;
  if (provider === "openai") return nonEmpty(env.DEFAULT_OPENAI_MODEL) ? env.DEFAULT_OPENAI_MODEL.trim() : FALLBACK_OPENAI_MODEL;
  return nonEmpty(env.DEFAULT_MODEL) ? env.DEFAULT_MODEL : FALLBACK_MODEL;
}

/** A real provider's model with no known price: one issue on `model` that names the PRICES setting. */
export function priceIssues(provider: ProviderName, model: string, prices: PriceTable): Issue[] {
  if (provider === "scripted" || modelPrice(provider, model, prices) !== undefined) return [];
  return [{ path: "model", message: unknownPriceMessage(provider, model) }];
}

/** compaction.mode "native" asks the provider to compact by itself, which only anthropic does. */
export function compactionIssues(provider: ProviderName, body: Pick<CreateRunBody, "compaction">): Issue[] {
  if (provider !== "openai" || body.compaction?.mode !== "native") return [];
  return [{ path: "compaction.mode", message: 'Provider "openai" has no compaction of its own: use "summary" or "auto" (the loop writes the summary).' }];
}
