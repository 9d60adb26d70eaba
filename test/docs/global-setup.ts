// Runs in Node before the workerd tests: hands the documentation, and the files that name the
// Worker's settings, to test/docs/docs.test.ts, which checks them against the code. Tests inside
// workerd cannot read the repository's files themselves.
import { readdirSync, readFileSync } from "node:fs";
import type { TestProject } from "vitest/node";

const ROOT = new URL("../../", import.meta.url);

/** The repository's Markdown at the top level, in docs/ and test/README.md, wrangler.toml and secrets.types.env, by path. */
export function repoFiles(): Record<string, string> {
  const markdown = (dir: string) =>
    readdirSync(new URL(dir === "" ? "." : dir, ROOT))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `${dir}${name}`);
  const files: Record<string, string> = {};
  for (const path of [...markdown(""), ...markdown("docs/"), "test/README.md", "wrangler.toml", "secrets.types.env"]) {
    files[path] = readFileSync(new URL(path, ROOT), "utf8");
  }
  return files;
}

export default function setup(project: TestProject): void {
  project.provide("repoFiles", repoFiles());
}
