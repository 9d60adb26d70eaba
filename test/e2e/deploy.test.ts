// What a deploy ships, read off `wrangler deploy --dry-run` on a copy of the project: no token or
// key among the bindings, and the console only with CONSOLE=on.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { snapshotProject } from "./support/dev-server";

const snapshot = snapshotProject();
afterAll(() => snapshot.remove());

function dryRun(env: Record<string, string> = {}): string {
  const outdir = mkdtempSync(join(tmpdir(), "ratchet-dry-run-"));
  try {
    const result = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir], {
      cwd: snapshot.dir,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_LOG: "debug", WRANGLER_SEND_METRICS: "false", CI: "true", ...env },
    });
    expect(result.status, result.stderr).toBe(0);
    return `${result.stdout}\n${result.stderr}`;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The names in the bindings table wrangler prints (env.NAME …). */
function bindings(output: string): string[] {
  return [...output.matchAll(/^env\.([A-Z_][A-Z0-9_]*)\b/gm)].map((match) => match[1]!);
}

describe("wrangler deploy --dry-run", () => {
  const output = dryRun();

  it("ships no token, key or secret as a binding", () => {
    const names = bindings(output);
    expect(names).toContain("RUNS");
    expect(names).toContain("DEFAULT_MODEL");
    expect(names.filter((name) => /TOKEN|KEY|SECRET|PASSWORD/.test(name) && !name.endsWith("_RATE_LIMIT"))).toEqual([]);
    expect(output).not.toContain("dev-token");
  });

  it("leaves the console out unless CONSOLE=on", () => {
    for (const file of ["console/index.html", "console/console.js", "console/console.css"]) expect(output).toContain(`Ignoring asset: ${file}`);
    const withConsole = dryRun({ CONSOLE: "on" });
    expect(withConsole).not.toContain("Ignoring asset: console/index.html");
    expect(withConsole).toContain("Ignoring asset: _headers"); // read by the platform, not served as a file
  });
});
