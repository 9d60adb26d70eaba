// The deploy preflight (scripts/preflight.mjs): its pure parts, then the real script as a child
// process with a fake wrangler (RATCHET_WRANGLER) and temp wrangler.toml files, then `npm run
// deploy` stopping at it. Nothing here talks to Cloudflare.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../scripts/preflight.mjs";
import { findVarProblems, missingSecrets, missingWebhookSecret, parseSecretList } from "../../scripts/preflight/checks.mjs";
import { formatListFailure, formatMissingSecrets, formatMissingWebhookSecret, formatVarProblems, okLine, summariseWranglerOutput } from "../../scripts/preflight/messages.mjs";
import { REQUIRED_SECRETS, looksLikeSecret } from "../../scripts/preflight/secrets.mjs";
import { parseVars } from "../../scripts/preflight/toml-vars.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = join(ROOT, "scripts/preflight.mjs");
const OK_LINE = "preflight: ok (API_TOKEN, RUN_ID_KEY, TOOL_SIGNING_KEY are set)";

const temp = mkdtempSync(join(tmpdir(), "ratchet-preflight-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const tempDir = () => mkdtempSync(join(temp, "t-"));

/** A wrangler.toml with the service's shape and the given [vars] body. */
function toml(vars: string): string {
  return `name = "ratchet"
main = "src/worker.ts"
compatibility_flags = ["nodejs_compat"]

[vars]
${vars}

[[durable_objects.bindings]]
name = "RUNS"
class_name = "RunObject"

[build]
command = "node scripts/build-console.mjs"
watch_dir = ["console", "src/client"]
`;
}
const CLEAN_VARS = `HTTP_TOOL_ALLOW = "localhost,127.0.0.1"\nDEFAULT_MODEL = "claude-sonnet-5-5"`;

/** The 1-based number of the line of `text` that is exactly `line`. */
function lineOf(text: string, line: string): number {
  const index = text.split("\n").indexOf(line);
  if (index < 0) throw new Error(`no line ${line}`);
  return index + 1;
}

describe("parseVars", () => {
  const names = (text: string) => parseVars(text).map((entry) => `${entry.table} ${entry.name}`);

  it("lists the keys of the top-level [vars] with their lines, and nothing from other tables", () => {
    expect(parseVars(toml(CLEAN_VARS))).toEqual([
      { table: "[vars]", name: "HTTP_TOOL_ALLOW", env: undefined, line: 6 },
      { table: "[vars]", name: "DEFAULT_MODEL", env: undefined, line: 7 },
    ]);
  });

  it("skips comments, including a commented-out secret and a # inside a value", () => {
    const text = `[vars]
# API_TOKEN = "dev-token"
   # RUN_ID_KEY = "x"
HTTP_TOOL_ALLOW = "a#b" # trailing comment API_TOKEN = "x"
URL = 'http://x/#frag' # and another
`;
    expect(names(text)).toEqual(["[vars] HTTP_TOOL_ALLOW", "[vars] URL"]);
  });

  it("reads quoted keys (basic with escapes, literal) and dotted keys", () => {
    const text = `[vars]
"API_TOKEN" = "a"
'RUN_ID_KEY' = "b"
"TOOL_\\u0053IGNING_KEY" = "c"
"WITH.DOT" = "d"
`;
    expect(names(text)).toEqual(["[vars] API_TOKEN", "[vars] RUN_ID_KEY", "[vars] TOOL_SIGNING_KEY", "[vars] WITH.DOT"]);
    expect(names(`vars.API_TOKEN = "a"\n`)).toEqual(["[vars] API_TOKEN"]);
  });

  it("reads every [env.<name>.vars], with bare and quoted environment names", () => {
    const text = `${toml(CLEAN_VARS)}
[env.staging]
name = "ratchet-staging"

[env.staging.vars]
API_TOKEN = "x"

[ env . "my env" . vars ]
RUN_ID_KEY = "y"
`;
    expect(parseVars(text).filter((entry) => entry.env !== undefined)).toEqual([
      { table: "[env.staging.vars]", name: "API_TOKEN", env: "staging", line: lineOf(text, 'API_TOKEN = "x"') },
      { table: '[env."my env".vars]', name: "RUN_ID_KEY", env: "my env", line: lineOf(text, 'RUN_ID_KEY = "y"') },
    ]);
  });

  it("reads vars written as inline tables, at the top level and inside an environment", () => {
    const text = `name = "ratchet"
vars = { API_TOKEN = "x", "OTHER" = 'y' }

[env.production]
vars = { RUN_ID_KEY = "z" }
`;
    expect(names(text)).toEqual(["[vars] API_TOKEN", "[vars] OTHER", "[env.production.vars] RUN_ID_KEY"]);
  });

  it("does not take lines inside multi-line strings or arrays for keys or tables", () => {
    const text = `[build]
command = """
[vars]
API_TOKEN = "not a key"
"""
literal = '''
[vars]
RUN_ID_KEY = 'not a key' '''
watch_dir = [
  "console", # a comment
  "[vars]",
]
[vars]
REAL = "yes"
`;
    expect(names(text)).toEqual(["[vars] REAL"]);
  });

  it("fails, naming the line, on text it cannot read (so the preflight fails closed)", () => {
    expect(() => parseVars(`[vars]\nAPI_TOKEN "x"\n`)).toThrow(/line 2/);
    expect(() => parseVars(`[vars]\nA = "unterminated\n`)).toThrow(/line 2/);
    expect(() => parseVars(`[vars\nA = "x"\n`)).toThrow(/line 1/);
  });

  it("reads the repository's own wrangler.toml", () => {
    expect(() => parseVars(readFileSync(join(ROOT, "wrangler.toml"), "utf8"))).not.toThrow();
  });
});

describe("findVarProblems and formatVarProblems", () => {
  it("flags the required secrets and anything named like a secret, and nothing else", () => {
    const text = `[vars]
API_TOKEN = "v1"
ANTHROPIC_API_KEY = "v2"
STRIPE_SECRET = "v3"
GITHUB_TOKEN = "v4"
lower_case_key = "v5"
API_TOKEN_PREVIOUS = "v6"
HTTP_TOOL_ALLOW = "v7"
DEFAULT_MODEL = "v8"
ALARM_DELAY_MS = "0"
KEYS_URL = "v9"
`;
    const problems = findVarProblems(parseVars(text));
    expect(problems.map((p) => [p.name, p.reason])).toEqual([
      ["API_TOKEN", "required"],
      ["ANTHROPIC_API_KEY", "secret-like"],
      ["STRIPE_SECRET", "secret-like"],
      ["GITHUB_TOKEN", "secret-like"],
      ["lower_case_key", "secret-like"],
      ["API_TOKEN_PREVIOUS", "secret-like"],
    ]);
    expect(REQUIRED_SECRETS.every(looksLikeSecret)).toBe(true);
    expect(looksLikeSecret("HTTP_TOOL_ALLOW")).toBe(false);
    // Web Push's public key is public: it goes in [vars]; its private key does not.
    expect(looksLikeSecret("VAPID_PUBLIC_KEY")).toBe(false);
    expect(looksLikeSecret("VAPID_PRIVATE_KEY")).toBe(true);
  });

  it("says which name, in which table, and what to do, and never prints a value", () => {
    const text = `${toml(`API_TOKEN = "hunter2-value"\n${CLEAN_VARS}`)}
[env.staging.vars]
RUN_ID_KEY = "another-secret-value"
`;
    const message = formatVarProblems(findVarProblems(parseVars(text)), "wrangler.toml");
    expect(message).toContain("[vars] (line 6) defines API_TOKEN");
    expect(message).toContain("remove it from [vars]; local values belong in .dev.vars");
    expect(message).toContain("npx wrangler secret put API_TOKEN");
    expect(message).toContain(`[env.staging.vars] (line ${lineOf(text, 'RUN_ID_KEY = "another-secret-value"')}) defines RUN_ID_KEY`);
    expect(message).toContain("remove it from [env.staging.vars]");
    expect(message).toContain("npx wrangler secret put RUN_ID_KEY --env staging");
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("another-secret-value");
  });
});

describe("the secret list", () => {
  const ALL = JSON.stringify(REQUIRED_SECRETS.map((name) => ({ name, type: "secret_text" })), null, "  ");

  it("reads wrangler's JSON array of { name, type }, also after a notice", () => {
    expect(parseSecretList(ALL)).toEqual(["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY"]);
    expect(parseSecretList(`A notice from wrangler.\n${ALL}\n`)).toEqual(["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY"]);
    expect(parseSecretList("[]")).toEqual([]);
  });

  it("refuses output that is not such a list", () => {
    expect(() => parseSecretList("")).toThrow(/JSON array/);
    expect(() => parseSecretList("Secret Name: API_TOKEN")).toThrow(/JSON array/);
    expect(() => parseSecretList(`["API_TOKEN"]`)).toThrow(/name, type/);
    expect(() => parseSecretList(`{"name":"API_TOKEN"}`)).toThrow(/JSON array/);
  });

  it("names the missing ones in order; extra secrets do not matter", () => {
    expect(missingSecrets([])).toEqual(["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY"]);
    expect(missingSecrets(["TOOL_SIGNING_KEY", "API_TOKEN", "ANTHROPIC_API_KEY"])).toEqual(["RUN_ID_KEY"]);
    expect(missingSecrets(["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY"])).toEqual([]);
  });

  it("gives for each missing secret the command that sets it and how to make a value", () => {
    const message = formatMissingSecrets(["API_TOKEN", "TOOL_SIGNING_KEY"]);
    expect(message).toContain("npx wrangler secret put API_TOKEN    (a good value: openssl rand -base64 32)");
    expect(message).toContain('npx wrangler secret put TOOL_SIGNING_KEY    (a good value: echo "whsec_$(openssl rand -base64 32)")');
    expect(message).not.toContain("secret put RUN_ID_KEY");
  });

  it("summarises a failed wrangler: no colour, no blank lines, no log-file note, bounded", () => {
    const stderr = "\x1b[31m✘ \x1b[41;31m[\x1b[41;97mERROR\x1b[41;31m]\x1b[0m \x1b[1mNot logged in.\x1b[0m\n\n\n🪵  Logs were written to \"/x.log\"\n";
    expect(summariseWranglerOutput(stderr)).toEqual(["✘ [ERROR] Not logged in."]);
    const long = summariseWranglerOutput(Array.from({ length: 20 }, (_v, i) => `line ${i}`).join("\n"));
    expect(long).toHaveLength(9);
    expect(long.at(-1)).toBe("… (12 more lines)");
  });

  it("when the list fails, advises logging in and creating the secrets before any first deploy", () => {
    const message = formatListFailure("npx wrangler secret list", "exit code 1", "✘ [ERROR] Worker \"ratchet\" not found.");
    expect(message).toContain("`npx wrangler secret list` failed (exit code 1)");
    expect(message).toContain("| ✘ [ERROR] Worker \"ratchet\" not found.");
    expect(message).toContain("npx wrangler login");
    expect(message).toContain("do not run `npx wrangler deploy` first");
    for (const name of REQUIRED_SECRETS) expect(message).toContain(`npx wrangler secret put ${name}`);
  });

  it("wants WEBHOOK_SECRET while the Worker's WEBHOOK_URL is set, in [vars] or as a secret", () => {
    const vars = parseVars(toml(`WEBHOOK_URL = "https://hooks.example.com/h"\n${CLEAN_VARS}`));
    expect(missingWebhookSecret(vars, REQUIRED_SECRETS)).toBe("[vars] (line 6)");
    expect(missingWebhookSecret(vars, [...REQUIRED_SECRETS, "WEBHOOK_SECRET"])).toBeUndefined();
    expect(missingWebhookSecret(parseVars(toml(CLEAN_VARS)), [...REQUIRED_SECRETS, "WEBHOOK_URL"])).toBe("a secret");
    expect(missingWebhookSecret(parseVars(toml(CLEAN_VARS)), REQUIRED_SECRETS)).toBeUndefined();
    // Another environment's vars are not the Worker that `npm run deploy` deploys.
    expect(missingWebhookSecret(parseVars(`[env.staging.vars]\nWEBHOOK_URL = "https://x"\n`), REQUIRED_SECRETS)).toBeUndefined();
  });

  it("says why a WEBHOOK_URL without WEBHOOK_SECRET stops the deploy, and how to set the secret", () => {
    const message = formatMissingWebhookSecret("[vars] (line 6)");
    expect(message).toContain("WEBHOOK_URL is set ([vars] (line 6))");
    expect(message).toContain("503 not-configured");
    expect(message).toContain('npx wrangler secret put WEBHOOK_SECRET    (a good value: echo "whsec_$(openssl rand -base64 32)")');
  });

  it("prints the ok line from the list of required secrets", () => {
    expect(okLine()).toBe(OK_LINE);
  });
});

describe("parseArgs", () => {
  it("takes --config <path>, --config=<path> and -c, defaulting to ./wrangler.toml", () => {
    expect(parseArgs([])).toEqual({ config: "./wrangler.toml" });
    expect(parseArgs(["--config", "a.toml"])).toEqual({ config: "a.toml" });
    expect(parseArgs(["--config=b.toml"])).toEqual({ config: "b.toml" });
    expect(parseArgs(["-c", "c.toml"])).toEqual({ config: "c.toml" });
    expect(() => parseArgs(["--skip"])).toThrow(/unknown argument/);
    expect(() => parseArgs(["--config"])).toThrow(/unknown argument/);
  });
});

describe("docs/deploy.md", () => {
  it("tells the operator to set every required secret", () => {
    const docs = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
    for (const name of REQUIRED_SECRETS) expect(docs).toContain(`npx wrangler secret put ${name}`);
  });
});

// ---------------------------------------------------------------------------------------------
// The real script, with a fake wrangler.

type Fake = { path: string; argsFile: string };

/** An executable that records its arguments, prints `stdout` and `stderr`, and exits with `code`. */
function fakeWrangler(options: { stdout?: string; stderr?: string; code?: number }): Fake {
  const dir = tempDir();
  writeFileSync(join(dir, "stdout.txt"), options.stdout ?? "");
  writeFileSync(join(dir, "stderr.txt"), options.stderr ?? "");
  const path = join(dir, "wrangler");
  const argsFile = join(dir, "args.txt");
  writeFileSync(
    path,
    `#!/bin/sh
here=$(dirname "$0")
printf '%s\\n' "$@" > "$here/args.txt"
cat "$here/stdout.txt"
cat "$here/stderr.txt" >&2
exit ${options.code ?? 0}
`,
  );
  chmodSync(path, 0o755);
  return { path, argsFile };
}

function secretList(names: readonly string[]): string {
  return JSON.stringify(names.map((name) => ({ name, type: "secret_text" })), null, "  ");
}

function writeToml(text: string): string {
  const path = join(tempDir(), "wrangler.toml");
  writeFileSync(path, text);
  return path;
}

type Run = { code: number | null; stdout: string; stderr: string };

function runPreflight(config: string, fake: Fake): Run {
  const result = spawnSync(process.execPath, [SCRIPT, "--config", config], {
    cwd: tempDir(),
    env: { ...process.env, RATCHET_WRANGLER: fake.path },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("node scripts/preflight.mjs", () => {
  const clean = writeToml(toml(CLEAN_VARS));

  it("all secrets set: exits 0 with the one ok line, having asked wrangler for the secrets of that config", () => {
    const fake = fakeWrangler({ stdout: `${secretList(["ANTHROPIC_API_KEY", ...REQUIRED_SECRETS])}\n` });
    const run = runPreflight(clean, fake);
    expect(run).toEqual({ code: 0, stdout: `${OK_LINE}\n`, stderr: "" });
    expect(readFileSync(fake.argsFile, "utf8").trim().split("\n")).toEqual(["secret", "list", "--format", "json", "--config", clean]);
  });

  it("one secret missing: exits 1 naming the command that sets it", () => {
    const run = runPreflight(clean, fakeWrangler({ stdout: secretList(["API_TOKEN", "TOOL_SIGNING_KEY"]) }));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("npx wrangler secret put RUN_ID_KEY");
    expect(run.stderr).not.toContain("secret put API_TOKEN");
    expect(run.stderr).not.toContain("preflight: ok");
  });

  it("API_TOKEN in [vars]: exits 1 naming it and the table, without asking wrangler or printing the value", () => {
    const fake = fakeWrangler({ stdout: secretList(REQUIRED_SECRETS) });
    const run = runPreflight(writeToml(toml(`API_TOKEN = "dev-token"\n${CLEAN_VARS}`)), fake);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("[vars] (line 6) defines API_TOKEN");
    expect(run.stderr).toContain("remove it from [vars]; local values belong in .dev.vars");
    expect(run.stderr).not.toContain("dev-token");
    expect(existsSync(fake.argsFile)).toBe(false);
  });

  it("`wrangler secret list` failing: exits 1 with its error and the advice", () => {
    const stderr = "\x1b[31m✘ [ERROR]\x1b[0m In a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN environment variable.\n\n🪵  Logs were written to \"/tmp/x.log\"\n";
    const run = runPreflight(clean, fakeWrangler({ stderr, code: 1 }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("failed (exit code 1)");
    expect(run.stderr).toContain("| ✘ [ERROR] In a non-interactive environment");
    expect(run.stderr).not.toContain("Logs were written");
    expect(run.stderr).toContain("npx wrangler login");
    expect(run.stderr).toContain("do not run `npx wrangler deploy` first");
    expect(run.stderr).toContain("npx wrangler secret put TOOL_SIGNING_KEY");
  });

  it("WEBHOOK_URL in [vars] without a WEBHOOK_SECRET secret: exits 1 naming the command; with it: ok", () => {
    const config = writeToml(toml(`WEBHOOK_URL = "https://hooks.example.com/h"\n${CLEAN_VARS}`));
    const refused = runPreflight(config, fakeWrangler({ stdout: secretList(REQUIRED_SECRETS) }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("WEBHOOK_URL is set ([vars] (line 6))");
    expect(refused.stderr).toContain("npx wrangler secret put WEBHOOK_SECRET");
    expect(refused.stdout).toBe("");
    const ok = runPreflight(config, fakeWrangler({ stdout: secretList([...REQUIRED_SECRETS, "WEBHOOK_SECRET"]) }));
    expect(ok).toEqual({ code: 0, stdout: `${OK_LINE}\n`, stderr: "" });
  });

  it("`wrangler secret list` printing something else: exits 1", () => {
    const run = runPreflight(clean, fakeWrangler({ stdout: "Secret Name: API_TOKEN\n" }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("did not print a JSON array");
  });

  it("a config it cannot read: exits 1", () => {
    const fake = fakeWrangler({ stdout: secretList(REQUIRED_SECRETS) });
    expect(runPreflight(join(tempDir(), "missing.toml"), fake).code).toBe(1);
    const broken = runPreflight(writeToml(`[vars]\nAPI_TOKEN "x"\n`), fake);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("line 2");
  });
});

describe("npm run deploy", () => {
  it("runs the preflight first and stops when it fails", () => {
    // --ignore-scripts leaves out predeploy (the console build, which other e2e tests run too);
    // the deploy script itself still runs. The fake wrangler's `secret list` fails, so the
    // preflight fails whatever the repository's wrangler.toml holds.
    const fake = fakeWrangler({ stderr: "✘ [ERROR] fake wrangler: no account\n", code: 1 });
    const result = spawnSync("npm", ["run", "--ignore-scripts", "deploy"], {
      cwd: ROOT,
      env: { ...process.env, RATCHET_WRANGLER: fake.path, NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).not.toBe(0);
    expect(result.stderr).toMatch(/^preflight: /m);
    // `wrangler deploy` never started: it would have printed its own errors (lines starting with
    // ✘; the preflight quotes wrangler's behind "  | ").
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\S*✘/m);
  });
});
