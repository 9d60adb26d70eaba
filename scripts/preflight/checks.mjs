// @ts-check
// What the preflight finds wrong: vars that must be secrets, the secrets the Worker lacks, and
// WEBHOOK_URL without WEBHOOK_SECRET; and the names in wrangler's secret list.
import { REQUIRED_SECRETS, looksLikeSecret } from "./secrets.mjs";

/** @typedef {import("./toml-vars.mjs").VarEntry} VarEntry */

/**
 * @typedef {VarEntry & { reason: "required" | "secret-like" }} VarProblem
 */

/**
 * The vars that must not be vars: a required secret's name, or a name that reads as a secret.
 * @param {VarEntry[]} vars
 * @returns {VarProblem[]}
 */
export function findVarProblems(vars) {
  return vars.flatMap((entry) => {
    /** @type {VarProblem[]} */
    const problems = [];
    if (REQUIRED_SECRETS.includes(entry.name)) problems.push({ ...entry, reason: "required" });
    else if (looksLikeSecret(entry.name)) problems.push({ ...entry, reason: "secret-like" });
    return problems;
  });
}

/**
 * The names in `wrangler secret list --format json` output: a JSON array of { name, type }.
 * @param {string} stdout
 * @returns {string[]}
 * @throws {Error} when the output is not that
 */
export function parseSecretList(stdout) {
  // Anything wrangler prints before the array (a notice) is skipped: the array starts a line.
  const start = stdout.search(/^\s*\[/m);
  /** @type {unknown} */
  let list;
  try {
    if (start < 0) throw new Error("no JSON array");
    list = JSON.parse(stdout.slice(start));
  } catch {
    throw new Error("`wrangler secret list --format json` did not print a JSON array of secrets");
  }
  if (!Array.isArray(list) || !list.every((item) => typeof item === "object" && item !== null && typeof item.name === "string")) {
    throw new Error("`wrangler secret list --format json` printed JSON that is not a list of { name, type }");
  }
  return list.map((item) => item.name);
}

/**
 * The required secrets not among `names`, in REQUIRED_SECRETS order.
 * @param {readonly string[]} names
 */
export function missingSecrets(names) {
  return REQUIRED_SECRETS.filter((name) => !names.includes(name));
}

/**
 * Where WEBHOOK_URL is set when the Worker has no WEBHOOK_SECRET to sign its webhooks with (the
 * Worker would answer every request 503), or undefined when nothing is missing. Only the top-level
 * Worker's settings count: its [vars] and its secrets.
 * @param {VarEntry[]} vars
 * @param {readonly string[]} names the Worker's secrets
 * @returns {string | undefined} "[vars] (line N)" or "a secret"
 */
export function missingWebhookSecret(vars, names) {
  if (names.includes("WEBHOOK_SECRET")) return undefined;
  const entry = vars.find((item) => item.env === undefined && item.name === "WEBHOOK_URL");
  if (entry !== undefined) return `${entry.table} (line ${entry.line})`;
  return names.includes("WEBHOOK_URL") ? "a secret" : undefined;
}
