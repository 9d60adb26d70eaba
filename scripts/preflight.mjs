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
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

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

// ---------------------------------------------------------------------------------------------
// wrangler.toml: just enough TOML to find every key under a vars table, in each way TOML can
// write one ([vars], [env.x.vars], `vars = { … }`, `vars.NAME = …`, `[env.x]` + `vars = { … }`).
// Values are skipped, never kept: the preflight must not be able to print one. Anything it
// cannot read is an error (the preflight then fails) rather than a silently skipped line.

/**
 * @typedef {{ table: string, name: string, env: string | undefined, line: number }} VarEntry
 * `table` as written in messages: "[vars]" or "[env.staging.vars]".
 */

/**
 * Every variable defined in wrangler.toml's vars tables, in file order.
 * @param {string} text wrangler.toml's contents
 * @returns {VarEntry[]}
 * @throws {Error} when the text is not TOML this parser can read ("line N: …")
 */
export function parseVars(text) {
  /** @type {VarEntry[]} */
  const vars = [];
  const seen = new Set();
  for (const { path, line } of tomlKeys(text)) {
    let entry;
    if (path.length >= 2 && path[0] === "vars") entry = { table: "[vars]", name: path[1], env: undefined, line };
    else if (path.length >= 4 && path[0] === "env" && path[2] === "vars") entry = { table: `[env.${tomlKey(path[1])}.vars]`, name: path[3], env: path[1], line };
    if (entry === undefined || entry.name === undefined) continue;
    const id = `${entry.table}\n${entry.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    vars.push(/** @type {VarEntry} */ (entry));
  }
  return vars;
}

/** @param {string | undefined} key a key as TOML would write it in a header */
function tomlKey(key = "") {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/**
 * The full path of every key the document defines (table headers give the prefix; keys inside
 * inline tables are listed too, keys inside arrays are not), with the line each starts on.
 * @param {string} text
 * @returns {{ path: string[], line: number }[]}
 */
function tomlKeys(text) {
  /** @type {{ path: string[], line: number }[]} */
  const keys = [];
  let pos = 0;
  const lineAt = (/** @type {number} */ at) => text.slice(0, at).split("\n").length;
  const fail = (/** @type {string} */ what) => {
    throw new Error(`line ${lineAt(pos)}: ${what}`);
  };
  const peek = (n = 1) => text.slice(pos, pos + n);
  const skipSpaces = () => {
    while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  };
  const skipComment = () => {
    if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
  };
  // Spaces, comments and line breaks: between top-level items, and inside arrays.
  const skipBlank = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (text[pos] === "\n" || text[pos] === "\r") pos++;
      else return;
    }
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (peek(2) === "\r\n") pos += 2;
    else if (pos < text.length && text[pos] === "\n") pos++;
    else if (pos < text.length) fail(`unexpected ${JSON.stringify(text[pos])}`);
  };

  /** A one-line string (key or value); returns its text. */
  const basicString = () => {
    pos++; // the opening quote
    let value = "";
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === "\n") fail("unterminated string");
      if (text[pos] === "\\") {
        const escaped = text[pos + 1] ?? "";
        const simple = /** @type {Record<string, string>} */ ({ b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" })[escaped];
        if (simple !== undefined) {
          value += simple;
          pos += 2;
        } else if (escaped === "u" || escaped === "U") {
          const digits = escaped === "u" ? 4 : 8;
          const hex = text.slice(pos + 2, pos + 2 + digits);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) fail("bad unicode escape");
          value += String.fromCodePoint(parseInt(hex, 16));
          pos += 2 + digits;
        } else fail("bad escape");
      } else value += text[pos++];
    }
    if (pos >= text.length) fail("unterminated string");
    pos++;
    return value;
  };
  const literalString = () => {
    const end = text.indexOf("'", pos + 1);
    const newline = text.indexOf("\n", pos + 1);
    if (end < 0 || (newline >= 0 && newline < end)) fail("unterminated string");
    const value = text.slice(pos + 1, end);
    pos = end + 1;
    return value;
  };
  const multilineString = (/** @type {string} */ quotes) => {
    pos += 3;
    for (;;) {
      if (pos >= text.length) fail("unterminated multi-line string");
      if (quotes === '"""' && text[pos] === "\\") pos += 2;
      else if (peek(3) === quotes) break;
      else pos++;
    }
    pos += 3;
    // Up to two quotes right before the closing three belong to the string.
    for (let extra = 0; extra < 2 && text[pos] === quotes[0]; extra++) pos++;
  };

  const simpleKey = () => {
    if (text[pos] === '"') return basicString();
    if (text[pos] === "'") return literalString();
    const bare = /^[A-Za-z0-9_-]+/.exec(text.slice(pos, pos + 256));
    if (bare === null) fail("expected a key");
    pos += /** @type {RegExpExecArray} */ (bare)[0].length;
    return /** @type {RegExpExecArray} */ (bare)[0];
  };
  /** A dotted key: a.b."c d". */
  const key = () => {
    const parts = [simpleKey()];
    for (;;) {
      skipSpaces();
      if (text[pos] !== ".") return parts;
      pos++;
      skipSpaces();
      parts.push(simpleKey());
    }
  };

  /**
   * Skips one value; the keys of an inline table are recorded under `prefix` (null inside arrays,
   * whose tables are not the Worker's vars).
   * @param {string[] | null} prefix
   */
  const value = (prefix) => {
    if (peek(3) === '"""' || peek(3) === "'''") return multilineString(peek(3));
    if (text[pos] === '"') return void basicString();
    if (text[pos] === "'") return void literalString();
    if (text[pos] === "[") {
      pos++;
      for (;;) {
        skipBlank();
        if (text[pos] === "]") break;
        value(null);
        skipBlank();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== "]") fail("expected , or ] in an array");
      }
      pos++;
      return;
    }
    if (text[pos] === "{") {
      pos++;
      for (;;) {
        skipBlank();
        if (text[pos] === "}") break;
        keyValue(prefix);
        skipBlank();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== "}") fail("expected , or } in an inline table");
      }
      pos++;
      return;
    }
    // Numbers, booleans, dates (a date may hold a space): up to a delimiter.
    const scalar = /^[^,\]}#\r\n]*/.exec(text.slice(pos))?.[0] ?? "";
    if (scalar.trim() === "") fail("expected a value");
    pos += scalar.trimEnd().length;
  };
  /** @param {string[] | null} prefix */
  const keyValue = (prefix) => {
    const start = pos;
    const path = key();
    skipSpaces();
    if (text[pos] !== "=") fail("expected =");
    pos++;
    skipSpaces();
    const full = prefix === null ? null : [...prefix, ...path];
    if (full !== null) keys.push({ path: full, line: lineAt(start) });
    value(full);
  };

  /** @type {string[]} */
  let table = [];
  for (;;) {
    skipBlank();
    if (pos >= text.length) return keys;
    if (text[pos] === "[") {
      const array = peek(2) === "[[";
      pos += array ? 2 : 1;
      skipSpaces();
      table = key();
      skipSpaces();
      if (peek(array ? 2 : 1) !== (array ? "]]" : "]")) fail("expected ] after a table name");
      pos += array ? 2 : 1;
    } else keyValue(table);
    endOfLine();
  }
}

// ---------------------------------------------------------------------------------------------
// Problems and messages.

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
