// Runs a TypeScript program in Node: `node bench/ts.mjs <file.ts> [args…]`. esbuild bundles the
// file (and what it imports from src/ and test/) into one temporary ES module, which is then
// imported; its own arguments follow the file name. Packages stay external (node_modules).
import { build } from "esbuild";
import { mkdtemp, rm } from "node:fs/promises";
import { mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [entry, ...rest] = process.argv.slice(2);
if (entry === undefined) {
  console.error("usage: node bench/ts.mjs <file.ts> [args…]");
  process.exit(2);
}
// Inside node_modules/.cache, so that the bundle's imports of packages resolve from this project.
const cache = join(fileURLToPath(new URL("..", import.meta.url)), "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const dir = await mkdtemp(join(cache, "ratchet-ts-"));
const outfile = join(dir, `${basename(entry, ".ts")}.mjs`);
try {
  await build({
    entryPoints: [resolve(entry)],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  process.argv = [process.argv[0], outfile, ...rest];
  await import(pathToFileURL(outfile).href);
} finally {
  await rm(dir, { recursive: true, force: true });
}
