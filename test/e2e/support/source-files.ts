// The repository's source files as the layout checks read them (test/e2e/test-layout.test.ts,
// test/e2e/no-sleeps.test.ts): paths from the project root, with `/` separators.
import { readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const SOURCE = /\.(ts|mts|js|mjs)$/;

/** Every source file under `dir`, relative to the project root, with `/` separators. */
export function sourcesUnder(dir: string): string[] {
  return readdirSync(resolve(ROOT, dir), { recursive: true, encoding: "utf8" })
    .map((path) => `${dir}/${path.split("\\").join("/")}`)
    .filter((path) => SOURCE.test(path))
    .sort();
}
