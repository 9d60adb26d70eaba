// @ts-check
// What the preflight prints: each refusal names what is wrong and the command that fixes it; the
// one line when everything is in place.
import { REQUIRED_SECRETS, VALUE_HINTS } from "./secrets.mjs";

/** @typedef {import("./checks.mjs").VarProblem} VarProblem */

/**
 * @param {string} name
 * @param {string | undefined} env
 */
function secretPutCommand(name, env) {
  return `npx wrangler secret put ${name}${env === undefined ? "" : ` --env ${env}`}`;
}

/**
 * The refusal for vars problems: which name, in which table, and what to do.
 * @param {VarProblem[]} problems (not empty)
 * @param {string} configPath as the operator should read it
 */
export function formatVarProblems(problems, configPath) {
  const lines = [`preflight: ${configPath} defines secrets as plain vars (committed, and shown in clear on the dashboard); not deploying.`];
  for (const problem of problems) {
    const what = problem.reason === "required" ? "one of the Worker's required secrets" : "a name that reads as a secret (…_TOKEN, …_KEY, …_SECRET)";
    lines.push(
      `  ${problem.table} (line ${problem.line}) defines ${problem.name}, ${what}: remove it from ${problem.table}; local values belong in .dev.vars.`,
      `    Then set the production value with: ${secretPutCommand(problem.name, problem.env)}`,
    );
    if (problem.reason === "secret-like") lines.push(`    (If ${problem.name} is not a secret, give it a name that does not end in _TOKEN, _KEY or _SECRET.)`);
  }
  lines.push(
    "  Why: while the deployed Worker has a var of that name, Cloudflare refuses `wrangler secret put` for it",
    '  ("Binding name already in use"), and a deploy with the var replaces the secret of that name.',
  );
  return lines.join("\n");
}

/**
 * The refusal when WEBHOOK_URL is set without WEBHOOK_SECRET.
 * @param {string} where as missingWebhookSecret says it
 */
export function formatMissingWebhookSecret(where) {
  return [
    `preflight: WEBHOOK_URL is set (${where}) but the Worker has no WEBHOOK_SECRET secret to sign webhooks with; not deploying:`,
    "  it would answer every request with 503 not-configured. Set it with:",
    `  ${secretPutLine("WEBHOOK_SECRET")}`,
    "Give the same value to the webhook receiver, then run `npm run deploy` again. See docs/deploy.md.",
  ].join("\n");
}

/**
 * The command that sets a required secret, with how to make a good value for it.
 * @param {string} name
 */
function secretPutLine(name) {
  const hint = /** @type {Record<string, string>} */ (VALUE_HINTS)[name];
  return `${secretPutCommand(name, undefined)}${hint === undefined ? "" : `    (a good value: ${hint})`}`;
}

/**
 * For each missing secret, the command that sets it and how to make a value.
 * @param {readonly string[]} missing (not empty)
 */
export function formatMissingSecrets(missing) {
  const lines = [`preflight: the Worker has no ${missing.join(", ")} secret${missing.length === 1 ? "" : "s"}; not deploying. Set ${missing.length === 1 ? "it" : "each"} with:`];
  for (const name of missing) lines.push(`  ${secretPutLine(name)}`);
  lines.push("Then run `npm run deploy` again. See docs/deploy.md.");
  return lines.join("\n");
}

/**
 * The gist of a failed wrangler's output: its messages without colour, blank lines or the note
 * about its log file, at most `maxLines` of them.
 * @param {string} output
 */
export function summariseWranglerOutput(output, maxLines = 8) {
  const lines = output
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !/Logs were written to/.test(line));
  return lines.length <= maxLines ? lines : [...lines.slice(0, maxLines), `… (${lines.length - maxLines} more lines)`];
}

/**
 * The refusal when the secrets could not be listed, with what to do in each likely case.
 * @param {string} command what was run, as the operator would type it
 * @param {string} failure how it failed ("exit code 1", "timed out", …)
 * @param {string} output its stderr (or stdout when stderr was empty)
 */
export function formatListFailure(command, failure, output) {
  const summary = summariseWranglerOutput(output);
  return [
    `preflight: could not list the Worker's secrets: \`${command}\` failed (${failure}); not deploying.`,
    ...summary.map((line) => `  | ${line}`),
    "What to do:",
    "  - Not logged in: `npx wrangler login` (in CI: set CLOUDFLARE_API_TOKEN, and CLOUDFLARE_ACCOUNT_ID if the token sees several accounts).",
    "  - No network: the preflight needs Cloudflare's API, as the deploy does; try again when it is reachable.",
    "  - First deploy of a new Worker (wrangler says it was not found): do not run `npx wrangler deploy` first, whatever",
    "    wrangler suggests: it would go out without its secrets. Create the secrets first:",
    ...REQUIRED_SECRETS.map((name) => `      ${secretPutLine(name)}`),
    "    The first of them creates the Worker as an empty placeholder (wrangler asks to confirm). Then `npm run deploy`.",
  ].join("\n");
}

/** The one line printed when everything is in place. */
export function okLine() {
  return `preflight: ok (${REQUIRED_SECRETS.join(", ")} are set)`;
}
