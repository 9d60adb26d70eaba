// The deployment's settings, read from the Worker's environment once and checked. A deployment
// that is missing a secret, uses a known public default, or holds a limit that is not a number is
// refused as a whole (the edge answers 503 not-configured), and every problem names the setting
// to fix, never its value. Plain data in, plain data out: no Workers types here.
import { KNOWN_DEFAULTS, PUBLIC_RUN_ID_KEY } from "./known-defaults";
import { readLimits, type Limits } from "./limits";
import { webhookProblems } from "./webhook-settings";
import { parsePublicUrl } from "./public-url";
import { parsePrices, PRICES_SETTING } from "./prices-setting";
import { baseUrlProblems } from "./base-urls";
import { readOtelSettings } from "./otel-settings";
import type { PriceTable } from "../providers/common/prices/prices";

export type { Limits };

/** Secrets are refused when shorter than this (a token must not be guessable). */
export const MIN_SECRET_LENGTH = 32;

export type Settings = {
  /** Deployment tokens that are accepted: the current one first, then API_TOKEN_PREVIOUS. */
  apiTokens: string[];
  /** Keys of the tag in run ids (and of ids and tokens derived from an Idempotency-Key): current first. */
  runIdKeys: string[];
  limits: Limits;
  /** PRICES: rows that add to or override the providers' price tables, by model id. */
  prices: PriceTable;
  /** SCRIPTED_PROVIDER=on: runs may use the offline scripted provider (deployment token only, but in local development). */
  scriptedProvider: boolean;
  /** Local development (LOCAL_DEV=true, reached at a loopback address): user and run tokens may use the scripted provider too. */
  localDev: boolean;
};

/** One thing wrong with the deployment: the setting and what is wrong, never its value. */
export type SettingProblem = { setting: string; problem: string };

export type SettingsResult = { ok: true; settings: Settings } | { ok: false; problems: SettingProblem[] };

/** The Worker's environment, seen as plain data. */
type EnvLike = object;

function textOf(env: EnvLike, name: string): string | undefined {
  const value = (env as Record<string, unknown>)[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * A secret: required ones must be set; outside local development each value must be long enough
 * and not one of the defaults this project publishes.
 */
function readSecret(env: EnvLike, name: string, required: boolean, localDev: boolean, problems: SettingProblem[]): string | undefined {
  const value = textOf(env, name);
  if (value === undefined) {
    if (required) problems.push({ setting: name, problem: "is not set" });
    return undefined;
  }
  if (localDev) return value;
  if (KNOWN_DEFAULTS.has(value)) problems.push({ setting: name, problem: "is a published default for local runs" });
  else if (value.length < MIN_SECRET_LENGTH) problems.push({ setting: name, problem: `is shorter than ${MIN_SECRET_LENGTH} characters` });
  return value;
}

function pair(current: string | undefined, previous: string | undefined): string[] {
  return [current, previous].filter((value): value is string => value !== undefined);
}

/**
 * The settings of `env`. `localDev` is true only for `wrangler dev` on this machine (LOCAL_DEV and
 * a loopback host, see isLocalDev): there the published defaults are accepted and RUN_ID_KEY may
 * be left out.
 */
export function readSettings(env: EnvLike, localDev: boolean): SettingsResult {
  const problems: SettingProblem[] = [];
  const apiToken = readSecret(env, "API_TOKEN", true, localDev, problems);
  const apiTokenPrevious = readSecret(env, "API_TOKEN_PREVIOUS", false, localDev, problems);
  const runIdKey = readSecret(env, "RUN_ID_KEY", !localDev, localDev, problems);
  const runIdKeyPrevious = readSecret(env, "RUN_ID_KEY_PREVIOUS", false, localDev, problems);
  // Optional and checked when a run with HTTP tools (or a webhook) is created (src/tools/http/signing-keys.ts,
  // ./webhook-settings.ts) or by the push routes (./push-settings.ts), but never a published one.
  for (const name of ["TOOL_SIGNING_KEY", "TOOL_SIGNING_KEY_PREVIOUS", "WEBHOOK_SECRET", "WEBHOOK_SECRET_PREVIOUS", "VAPID_PRIVATE_KEY"]) {
    const value = textOf(env, name);
    if (!localDev && value !== undefined && KNOWN_DEFAULTS.has(value)) problems.push({ setting: name, problem: "is a published default for local runs" });
  }
  // Every run's events go to WEBHOOK_URL: it must be a URL and its webhooks must be signable.
  problems.push(...webhookProblems(env as Record<string, string | undefined>));
  if (parsePublicUrl((env as Record<string, unknown>).PUBLIC_URL) === "invalid") {
    problems.push({ setting: "PUBLIC_URL", problem: "is not an http(s) URL without query or fragment" });
  }
  problems.push(...baseUrlProblems(env as Record<string, unknown>));
  // Trace export (docs/traces.md): off without an endpoint; a bad value names its setting.
  problems.push(...readOtelSettings(env as Record<string, unknown>).problems);
  const prices = parsePrices((env as Record<string, unknown>)[PRICES_SETTING]);
  if (!prices.ok) problems.push({ setting: PRICES_SETTING, problem: prices.problem });
  const limits = readLimits(env);
  problems.push(...limits.problems);
  const scripted = readSwitch(env, SCRIPTED_PROVIDER_SETTING);
  if (scripted === undefined) problems.push({ setting: SCRIPTED_PROVIDER_SETTING, problem: "must be on or off" });
  if (problems.length > 0 || !prices.ok) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      apiTokens: pair(apiToken, apiTokenPrevious),
      runIdKeys: runIdKey === undefined ? [PUBLIC_RUN_ID_KEY, ...pair(runIdKeyPrevious, undefined)] : pair(runIdKey, runIdKeyPrevious),
      limits: limits.limits,
      prices: prices.prices,
      scriptedProvider: scripted === true,
      localDev,
    },
  };
}

/** The switch that lets runs use the scripted provider, whose "model" says what the request wrote. */
export const SCRIPTED_PROVIDER_SETTING = "SCRIPTED_PROVIDER";

/** An on/off setting: unset is off; undefined when it is neither. */
function readSwitch(env: EnvLike, name: string): boolean | undefined {
  const value = textOf(env, name)?.trim().toLowerCase();
  if (value === undefined || value === "off") return false;
  return value === "on" ? true : undefined;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Local development: LOCAL_DEV is "true" (set by .dev.vars, which `wrangler deploy` never ships)
 * and the request reached a loopback address. Both are needed, so a LOCAL_DEV left in a deployed
 * Worker's settings still opens nothing: a deployed Worker is never reached at localhost.
 */
export function isLocalDev(env: EnvLike, hostname: string): boolean {
  return localDevSwitch(env) && LOOPBACK.has(hostname);
}

/**
 * LOCAL_DEV alone, for code that has no request to look at (an object's fire of a schedule, a
 * child's start): what reaches it was admitted at the edge first, where the loopback address was
 * checked too.
 */
export function localDevSwitch(env: EnvLike): boolean {
  return textOf(env, "LOCAL_DEV") === "true";
}

/**
 * Why the published local values were refused although LOCAL_DEV is on: the request reached
 * `hostname`, not a loopback address (a phone on the LAN, a tunnel). Undefined when LOCAL_DEV is
 * off or the host is a loopback one. What to do instead, for the log and the operator's 503.
 */
export function offLoopbackHint(env: EnvLike, hostname: string): string | undefined {
  if (textOf(env, "LOCAL_DEV") !== "true" || LOOPBACK.has(hostname)) return undefined;
  return (
    `LOCAL_DEV=true accepts the published local values only at a loopback address (localhost, 127.0.0.1, [::1]); this request reached ${hostname}. ` +
    "For a device on your LAN, put your own values of the settings named above in .dev.vars (at least 32 characters each: `openssl rand -base64 32`; " +
    "for TOOL_SIGNING_KEY and WEBHOOK_SECRET `echo \"whsec_$(openssl rand -base64 32)\"`), then `npm start -- --ip 0.0.0.0` and use your API_TOKEN; " +
    "or reach this machine through a tunnel that keeps a loopback address (`adb reverse tcp:8787 tcp:8787` for an Android device, `ssh -L`)."
  );
}

/** What the 503 says: every setting to fix, and how, without a value. `hint`: offLoopbackHint's advice, which replaces the deploy advice. */
export function describeProblems(problems: readonly SettingProblem[], hint?: string): string {
  const list = problems.map((item) => `${item.setting} ${item.problem}`).join("; ");
  const advice = hint ?? "Set secrets with `npx wrangler secret put <NAME>` and limits in wrangler.toml [vars].";
  return `This deployment is not configured: ${list}. ${advice}`;
}

const cache = new WeakMap<object, Map<boolean, SettingsResult>>();

/** readSettings, computed once per environment object (an isolate keeps its env). */
export function settingsOf(env: EnvLike, localDev: boolean): SettingsResult {
  let byMode = cache.get(env);
  if (byMode === undefined) cache.set(env, (byMode = new Map()));
  let result = byMode.get(localDev);
  if (result === undefined) byMode.set(localDev, (result = readSettings(env, localDev)));
  return result;
}

const limitsCache = new WeakMap<object, Limits>();

/** The limits the run object applies: a setting that is not valid keeps its default (the edge refuses new work anyway). */
export function limitsOf(env: EnvLike): Limits {
  let limits = limitsCache.get(env);
  if (limits === undefined) limitsCache.set(env, (limits = readLimits(env).limits));
  return limits;
}

const pricesCache = new WeakMap<object, PriceTable>();

/** The PRICES rows the run object charges by: a value that does not parse adds none (the edge refuses new work anyway). */
export function pricesOf(env: EnvLike): PriceTable {
  let prices = pricesCache.get(env);
  if (prices === undefined) {
    const parsed = parsePrices((env as Record<string, unknown>)[PRICES_SETTING]);
    pricesCache.set(env, (prices = parsed.ok ? parsed.prices : {}));
  }
  return prices;
}

/** SCRIPTED_PROVIDER as the objects read it (a schedule's fire, a child's start, the provider factory): only "on" is on. */
export function scriptedProviderOn(env: EnvLike): boolean {
  return readSwitch(env, SCRIPTED_PROVIDER_SETTING) === true;
}

/**
 * The key run objects derive callback tokens with: RUN_ID_KEY, or the local default when a local
 * run sets none — the first of the edge's runIdKeys, which checks those tokens.
 */
export function currentRunIdKey(env: EnvLike): string {
  return textOf(env, "RUN_ID_KEY") ?? PUBLIC_RUN_ID_KEY;
}
