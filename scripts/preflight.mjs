// @ts-check
// The deploy preflight: `npm run deploy` runs this, and `wrangler deploy` only when it exits 0, so a
// Worker does not go out without its secrets. It checks names only and never sees a value.
//
//   1. wrangler.toml's [vars] (top level and every [env.<name>.vars]) must not define a required
//      secret, nor anything named like a secret (…_TOKEN, …_KEY, …_SECRET). While the deployed
//      Worker has a var of a name, Cloudflare refuses `wrangler secret put` for it ("Binding name
//      already in use", code 10053), and a deploy with the var replaces a secret of that name
//      (wrangler 4.86 only warns about that when run interactively or with --strict).
//   2. `wrangler secret list --format json` must name every required secret, and WEBHOOK_SECRET
//      when WEBHOOK_URL is set (a top-level var or a secret): without it the Worker answers every
//      request 503 not-configured, so the deploy is refused rather than warned about.
//
// Decisions:
// - A Worker that does not exist yet: `wrangler secret list` fails with "not found … run `wrangler
//   deploy` first to create it". We say the opposite: create the secrets first. In wrangler 4.86
//   `wrangler secret put` on a missing Worker asks "Do you want to create a new Worker with that
//   name and add secrets to it?" (yes by default when not interactive), uploads a placeholder
//   script (`export default { fetch() {} }`, which answers no request) and stores the secret; the
//   first `npm run deploy` then replaces the placeholder. So no version of Ratchet is ever live
//   without its secrets.
// - No bypass (no RATCHET_SKIP_PREFLIGHT): a switch to skip the check would end up in someone's
//   shell profile. `npx wrangler deploy` run directly skips the preflight; that is the operator's
//   call (docs/deploy.md says so).
// - If the check cannot be made (not logged in, no network), the deploy does not go out either:
//   it could not have gone out without Cloudflare's API anyway.
// - Environments: the [vars] check reads every [env.<name>.vars], but the secret list is the
//   top-level Worker's (what `npm run deploy` deploys); arguments after `npm run deploy --` reach
//   only `wrangler deploy`.
// - RATCHET_WRANGLER, when set, is the path of an executable run in place of `npx wrangler` (no
//   shell, so no quoting): the tests put a fake wrangler there.
//
// Usage: node scripts/preflight.mjs [--config <path>]   (default ./wrangler.toml)
//
// The parts, in scripts/preflight/: secrets.mjs (the names), toml-vars.mjs (wrangler.toml's vars),
// checks.mjs (what is wrong), messages.mjs (what is printed).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findVarProblems, missingSecrets, missingWebhookSecret, parseSecretList } from "./preflight/checks.mjs";
import { formatListFailure, formatMissingSecrets, formatMissingWebhookSecret, formatVarProblems, okLine } from "./preflight/messages.mjs";
import { parseVars } from "./preflight/toml-vars.mjs";

/**
 * @param {readonly string[]} argv the arguments after the script's path
 * @returns {{ config: string }}
 * @throws {Error} on an argument it does not know
 */
export function parseArgs(argv) {
  let config = "./wrangler.toml";
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    if ((arg === "--config" || arg === "-c") && argv[i + 1] !== undefined) config = /** @type {string} */ (argv[++i]);
    else if (arg.startsWith("--config=")) config = arg.slice("--config=".length);
    else throw new Error(`unknown argument ${JSON.stringify(arg)} (usage: node scripts/preflight.mjs [--config <path>])`);
  }
  return { config };
}

// ---------------------------------------------------------------------------------------------
// The script.

/**
 * Runs the preflight; returns the exit code.
 * @param {readonly string[]} argv
 * @param {NodeJS.ProcessEnv} env
 */
async function main(argv, env) {
  let config;
  try {
    ({ config } = parseArgs(argv));
  } catch (error) {
    console.error(`preflight: ${/** @type {Error} */ (error).message}`);
    return 2;
  }

  let vars;
  try {
    vars = parseVars(readFileSync(config, "utf8"));
  } catch (error) {
    console.error(`preflight: cannot read the vars of ${config}: ${/** @type {Error} */ (error).message}`);
    return 1;
  }
  const problems = findVarProblems(vars);
  if (problems.length > 0) {
    console.error(formatVarProblems(problems, config));
    return 1;
  }

  const args = ["secret", "list", "--format", "json", "--config", resolve(config)];
  const [file, fileArgs, shown] =
    env.RATCHET_WRANGLER !== undefined && env.RATCHET_WRANGLER !== ""
      ? [env.RATCHET_WRANGLER, args, `${env.RATCHET_WRANGLER} secret list`]
      : ["npx", ["wrangler", ...args], "npx wrangler secret list"];
  // stdout is a pipe, so wrangler runs non-interactive: it fails rather than opening a browser to log in.
  const result = spawnSync(file, fileArgs, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", timeout: 120_000, env: { ...env, NO_COLOR: "1" } });
  if (result.error !== undefined || result.status !== 0) {
    const failure =
      result.error !== undefined
        ? /** @type {NodeJS.ErrnoException} */ (result.error).code === "ETIMEDOUT"
          ? "timed out after 120 s"
          : result.error.message
        : result.signal !== null
          ? `killed by ${result.signal}`
          : `exit code ${result.status}`;
    console.error(formatListFailure(shown, failure, result.stderr?.trim() ? result.stderr : (result.stdout ?? "")));
    return 1;
  }

  let names;
  try {
    names = parseSecretList(result.stdout);
  } catch (error) {
    console.error(formatListFailure(shown, /** @type {Error} */ (error).message, result.stderr ?? ""));
    return 1;
  }
  const missing = missingSecrets(names);
  if (missing.length > 0) {
    console.error(formatMissingSecrets(missing));
    return 1;
  }
  const webhookUrl = missingWebhookSecret(vars, names);
  if (webhookUrl !== undefined) {
    console.error(formatMissingWebhookSecret(webhookUrl));
    return 1;
  }
  console.log(okLine());
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2), process.env);
